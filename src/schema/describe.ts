// Wording shared by every schema message, so reconcile, conform and strict read alike.

/** `asset "orders": ` when the asset is known, so messages lead with what they concern. */
export function assetPrefix(assetKey: string | undefined): string {
  return assetKey === undefined ? "" : `asset "${assetKey}": `;
}

/** One problem per field, first seen, kept in the order the message lists them. */
export class FieldProblems {
  private readonly byField = new Map<string, { readonly rank: number; readonly text: string }>();

  /** Records a problem unless the field already has one; `rank` orders the listing. */
  add(field: string, rank: number, text: string): void {
    if (!this.byField.has(field)) this.byField.set(field, { rank, text });
  }

  has(field: string): boolean {
    return this.byField.has(field);
  }

  get size(): number {
    return this.byField.size;
  }

  /** `2 fields do not match the schema: a; b`, with the verb fitting the count. */
  summary(singular: string, plural: string): string {
    const n = this.byField.size;
    const listed = [...this.byField.values()]
      .sort((a, b) => a.rank - b.rank)
      .map((p) => p.text)
      .join("; ");
    return `${n} ${n === 1 ? `field ${singular}` : `fields ${plural}`}: ${listed}`;
  }
}
