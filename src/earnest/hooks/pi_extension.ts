// earnest-effect-gate extension for Pi, version __EARNEST_VERSION__
// Written by `earnest hook install pi`; `earnest hook uninstall pi` removes it. Do not edit:
// a reinstall replaces this file (a file of this name that earnest did not write is refused).
//
// Pi cannot veto the end of a run. When a turn ends without a tool call (the agent has said
// its last word), this runs earnest's stop hook on the session and, when it blocks, queues
// the reason as a follow-up user message: Pi takes follow-ups before the run ends, so the
// agent goes on. earnest's own state bounds the re-prompts (max_downgrades per prompt).
import { spawnSync } from "node:child_process";

const COMMAND = __EARNEST_COMMAND__;
const TIMEOUT_MS = 30000;

function lastText(message: any): string {
  const content = message && Array.isArray(message.content) ? message.content : [];
  return content
    .filter((part: any) => part && part.type === "text" && typeof part.text === "string")
    .map((part: any) => part.text)
    .join("");
}

function calledTools(event: any): boolean {
  const content = event && event.message && Array.isArray(event.message.content)
    ? event.message.content
    : [];
  const results = event && Array.isArray(event.toolResults) ? event.toolResults : [];
  return results.length > 0 || content.some((part: any) => part && part.type === "toolCall");
}

export default function (pi: any) {
  pi.on("turn_end", async (event: any, ctx: any) => {
    if (calledTools(event)) return; // the loop goes on by itself
    const message = event && event.message;
    if (message && message.role !== "assistant") return;
    // Stopped by the user (Esc) or by an error: a follow-up would fight the user.
    if (message && (message.stopReason === "aborted" || message.stopReason === "error")) return;
    const manager = ctx && ctx.sessionManager;
    const transcript = manager && manager.getSessionFile ? manager.getSessionFile() : undefined;
    const header = manager && manager.getHeader ? manager.getHeader() : undefined;
    const input = JSON.stringify({
      hook_event_name: "turn_end",
      session_id: (manager && manager.getSessionId && manager.getSessionId()) || (header && header.id) || "",
      transcript_path: transcript || "",
      cwd: (ctx && ctx.cwd) || process.cwd(),
      last_assistant_message: lastText(event && event.message),
    });
    let out: any = {};
    try {
      const done = spawnSync("/bin/sh", ["-c", COMMAND], {
        input,
        encoding: "utf8",
        timeout: TIMEOUT_MS,
        cwd: (ctx && ctx.cwd) || process.cwd(),
      });
      if (done.stderr) process.stderr.write(done.stderr);
      const text = (done.stdout || "").trim();
      out = text.startsWith("{") ? JSON.parse(text) : {};
    } catch (error) {
      process.stderr.write(`earnest: the stop hook did not run (${error}); stop allowed\n`);
      return;
    }
    if (out && out.decision === "block" && typeof out.reason === "string" && out.reason) {
      pi.sendUserMessage(out.reason, { deliverAs: "followUp" });
    } else if (out && typeof out.systemMessage === "string" && out.systemMessage) {
      if (ctx && ctx.hasUI && ctx.ui && ctx.ui.notify) ctx.ui.notify(out.systemMessage, "warning");
      else process.stderr.write(out.systemMessage + "\n");
    }
  });
}
