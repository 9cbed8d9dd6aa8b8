export { withApproval } from "./with-approval";
