/**
 * Ink's `color` prop, or no prop at all: with exactOptionalPropertyTypes, `color={undefined}` is
 * not the same as leaving it out, and the views decide their colors with conditionals.
 */
export const colorProp = (color: string | undefined): { color?: string } => (color === undefined ? {} : { color });
