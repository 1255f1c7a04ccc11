/**
 * Whether a test can use an external service (a database server, an S3 API server, a browser).
 * When it cannot, the suite skips the tests that need it with one printed line saying what was
 * skipped and how to enable it; in CI (INTERLOPER_REQUIRE_SERVICES=1) a missing service is a
 * failure instead, so a green CI run always exercised the real thing.
 */
export function serviceAvailable(name: string, available: boolean, howToEnable: string): boolean {
  if (available) return true;
  if (process.env["INTERLOPER_REQUIRE_SERVICES"] === "1") {
    throw new Error(`${name} is required in CI (INTERLOPER_REQUIRE_SERVICES=1) but is not available: ${howToEnable}`);
  }
  console.warn(`skipping the ${name} tests: ${name} is not available here (${howToEnable})`);
  return false;
}
