// Types of rows.mjs, for the TypeScript workload modules in bench/database.
export interface OrderRow {
  date: string;
  order_id: number;
  customer: string;
  amount: number;
  status: string;
}
export function dayNumber(day: string): number;
export function rowsOf(day: string, from: number, to: number): OrderRow[];
export function rowsForDay(day: string, count: number): OrderRow[];
export function rowBatches(day: string, count: number, batch?: number): AsyncGenerator<OrderRow[]>;
export function days(start: string, count: number): string[];
export const COLUMNS: readonly ["date", "order_id", "customer", "amount", "status"];
