// The generator's errors are the shared reader's: one class names `file#pointer`
// whichever package found the problem.
export { DefinitionError } from "@wfr/definition-reader";
