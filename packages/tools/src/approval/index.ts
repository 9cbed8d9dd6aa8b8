export { withApproval } from "./with-approval";
export type { NeedsApproval, ToolInputOf } from "./with-approval";
export { withInDoubt } from "./with-in-doubt";
