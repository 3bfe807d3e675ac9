export type {
  AnyWorkflowDefinition,
  InputIssue,
  InputIssueReason,
  InputsOf,
  LaunchableWorkflow,
  ModelName,
  OutputIssue,
  OutputsOf,
  SchemaLike,
  WorkflowDefinition,
  WorkflowState,
} from "./workflow-definition.js";
export { file, isFileInput } from "./file-input.js";
export type { FileData, FileInput, FileOptions } from "./file-input.js";
export { downloadFileOutput, FileOutputDownloadError } from "./file-output.js";
export type { DownloadFileOutputOptions, FileOutputReference } from "./file-output.js";
