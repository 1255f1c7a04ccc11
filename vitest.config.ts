import { defineConfig } from "vitest/config";

// Everything that does date arithmetic runs once per process time zone: a bug that only
// shows west of UTC or at a half-hour offset must fail here, not in a user's backfill.
const zones = ["UTC", "America/Los_Angeles", "Asia/Kolkata"];
const zoned = ["test/**/*.test.ts", "test/**/*.test.tsx"];
const once = ["test/e2e/**", "test/reliability/**", "test/services/**"];

export default defineConfig({
  test: {
    reporters: ["default", "./test/support/summary-reporter.ts"],
    testTimeout: 20_000,
    projects: [
      ...zones.map((zone) => ({
        extends: true as const,
        test: { name: `tz:${zone}`, include: zoned, exclude: once, env: { TZ: zone } },
      })),
      {
        extends: true as const,
        test: { name: "e2e", include: once.map((dir) => `${dir.replace("/**", "")}/**/*.test.ts`) },
      },
    ],
  },
});
