// Types of project.mjs, for the TypeScript workload modules in bench/database.
import type { z } from "zod";
import type * as Interloper from "../../dist/index.js";

export declare const il: typeof Interloper;
export declare const Order: z.ZodObject<{
  date: z.ZodISODate;
  order_id: z.ZodNumber;
  customer: z.ZodString;
  amount: z.ZodNumber;
  status: z.ZodString;
}>;
export declare const YEAR_2025: string;
export function shopProject(options: {
  destination: Interloper.Destination;
  rows?: number;
  stream?: boolean;
  start?: string;
  schema?: boolean;
  checks?: "four" | "unique";
}): {
  shop: unknown;
  orders: unknown;
  dag: Interloper.DAG;
};
export declare const CHECK_SETS: Record<"four" | "unique", () => Interloper.Check[]>;
export function assertChecked(orders: unknown, partition: string, expected: number): Promise<string[]>;
export function assertCompleted(result: unknown, what: string): void;
