// The one value describer of messages (src/text/describe-value.ts): each kind of value says what
// it is and, where short enough, what it holds.
import { describe, expect, it } from "vitest";
import { describeKind, describeValue } from "../../src/text/describe-value.js";

describe("describeValue", () => {
  it("names a primitive's kind and shows it", () => {
    expect(describeValue("12")).toBe('string "12"');
    expect(describeValue(-0)).toBe("number -0");
    expect(describeValue(7n)).toBe("bigint 7n");
    expect(describeValue(null)).toBe("null");
    expect(describeValue(undefined)).toBe("undefined");
  });

  it("shows plain objects and arrays as JSON, other objects by their class", () => {
    expect(describeValue({ a: 1 })).toBe('object {"a":1}');
    expect(describeValue([1, 2])).toBe("array [1,2]");
    expect(describeValue(new Map())).toBe("Map");
    expect(describeValue(new Date(Number.NaN))).toBe("invalid Date");
  });

  it("tells a class from a function, by name", () => {
    class CsvThing {}
    function makeThing() {}
    expect(describeValue(CsvThing)).toBe("class CsvThing");
    expect(describeValue(makeThing)).toBe("function makeThing");
    expect(describeValue([() => 1][0])).toBe("function (anonymous)");
  });
});

describe("describeKind", () => {
  it("names the kind alone, with its article", () => {
    expect(describeKind(42)).toBe("a number");
    expect(describeKind({ secret: "x" })).toBe("an object");
    expect(describeKind(new Map())).toBe("a Map");
    expect(describeKind(null)).toBe("null");
  });
});
