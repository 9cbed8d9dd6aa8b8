export { withApproval } from "./with-approval";
export { withInDoubt } from "./with-in-doubt";
