// `@agentrx/executors/trace-page` moved to `@agentrx/viewer/trace-page` (install @agentrx/viewer);
// this subpath re-exports it so requires written before the move keep working.
module.exports = require("@agentrx/viewer/trace-page");
