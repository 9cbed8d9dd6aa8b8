"""nbconvert's ExecutePreprocessor, adjusted for Deno's Jupyter kernel; used by notebooks.test.ts.

jupyter nbconvert --to notebook --NotebookExporter.preprocessors=deno_execute_preprocessor.DenoExecutePreprocessor \
    --DenoExecutePreprocessor.enabled=True --ExecutePreprocessor.kernel_name=... notebook.ipynb

(with this folder on PYTHONPATH; options of ExecutePreprocessor apply to it, as it is a subclass).
It changes two things:

- Late outputs. Deno's kernel (2.9) publishes what a cell's code sends (console output,
  display_data, the execute_result) through a queue that is drained apart from the replies, so a
  cell's output can reach IOPub just after its "idle" status. nbclient stops reading a cell's
  outputs at "idle", so such an output was lost: in 3 of 10 runs of a five-cell notebook, some
  cell lost its execute_result. Here, after "idle", the cell keeps collecting the outputs of its
  own request until IOPub has been quiet for `late_output_grace` seconds (the next cell is sent
  only then, so the kernel still labels a late output with the right request).
- Display ids. A display_data's display_id is transient: Jupyter never saves it in the notebook.
  Each display_data, update_display_data and execute_result a cell receives is logged in the
  executed copy's cell metadata, under "iopub": its type, display_id and MIME types.
"""

import queue

from nbclient.exceptions import CellExecutionComplete
from nbclient.util import ensure_async
from nbconvert.preprocessors import ExecutePreprocessor
from traitlets import Float

LOGGED = ("display_data", "update_display_data", "execute_result")


class DenoExecutePreprocessor(ExecutePreprocessor):
    late_output_grace = Float(
        0.25, help="Seconds of IOPub silence, after a cell's idle status, before its outputs are complete."
    ).tag(config=True)

    async def _async_poll_output_msg(self, parent_msg_id, cell, cell_index):
        while True:
            msg = await ensure_async(self.kc.iopub_channel.get_msg(timeout=None))
            if msg["parent_header"].get("msg_id") != parent_msg_id:
                continue
            try:
                self.process_message(msg, cell, cell_index)
            except CellExecutionComplete:
                break
        while True:
            try:
                msg = await ensure_async(self.kc.iopub_channel.get_msg(timeout=self.late_output_grace))
            except queue.Empty:
                return
            if msg["parent_header"].get("msg_id") == parent_msg_id and msg["msg_type"] != "status":
                self.process_message(msg, cell, cell_index)

    def process_message(self, msg, cell, cell_index):
        if msg["msg_type"] in LOGGED:
            content = msg["content"]
            cell.metadata.setdefault("iopub", []).append(
                {
                    "msg_type": msg["msg_type"],
                    "display_id": (content.get("transient") or {}).get("display_id"),
                    "mime_types": sorted((content.get("data") or {}).keys()),
                }
            )
        return super().process_message(msg, cell, cell_index)
