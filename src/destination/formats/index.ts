// `interloper/destination/formats`, the package's export path of the file formats: they live in
// ../format/ (one file per format); this path stays so that imports of it keep working.
export * from "../format/index.js";
