export { FIELD_TYPES, isDateObjectField, isFieldValue, type FieldSpec, type FieldType } from "./field-spec.js";
export { fieldSpecs } from "./from-zod.js";
export { inferFieldSpecs, mergeInferred } from "./infer.js";
export { numberText, toText } from "./text.js";
export { reconcileRows, type ReconcileOptions } from "./reconcile.js";
export { conform, type ConformOptions, type ConformResult, type ConformStrategy } from "./conform.js";
export { formatIsoDate, parseIsoDateTime, type ParsedInstant } from "./iso.js";
