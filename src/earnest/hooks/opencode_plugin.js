// earnest-effect-gate: opencode plugin written by `earnest hook install opencode`.
// earnest __EARNEST_VERSION__, plugin format __PLUGIN_FORMAT__. Rewritten by the next install and
// removed by `earnest hook uninstall opencode`: keep your own plugins in other files.
//
// When the model finishes a text, opencode waits for this hook. It asks earnest whether the
// run has the effect its request asked for; when earnest answers {"decision":"block"}, the
// reason is queued as a user message (noReply) and opencode's running loop gives it to the
// model. earnest bounds the re-prompts (max_downgrades) and allows any stop it cannot judge;
// this plugin never throws into opencode.
import { spawn } from "node:child_process"

const COMMAND = __EARNEST_COMMAND__
const TIMEOUT_MS = __EARNEST_TIMEOUT_MS__

function judge(payload, cwd) {
  return new Promise((resolve) => {
    let child
    try {
      child = spawn(COMMAND[0], COMMAND.slice(1), { cwd, stdio: ["pipe", "pipe", "pipe"] })
    } catch {
      resolve(null)
      return
    }
    let out = ""
    const timer = setTimeout(() => {
      try { child.kill("SIGKILL") } catch {}
    }, TIMEOUT_MS)
    child.stdout.on("data", (chunk) => { out += chunk })
    child.stderr.on("data", () => {})
    child.on("error", () => { clearTimeout(timer); resolve(null) })
    child.on("close", () => {
      clearTimeout(timer)
      const line = out.trim().split("\n").pop() || ""
      try { resolve(line.startsWith("{") ? JSON.parse(line) : null) } catch { resolve(null) }
    })
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(payload))
  })
}

export const EarnestEffectGate = async ({ client, directory }) => ({
  "experimental.text.complete": async (input, output) => {
    try {
      const answer = await judge({
        hook_event_name: "text.complete",
        session_id: input.sessionID,
        message_id: input.messageID,
        part_id: input.partID,
        cwd: directory,
        last_assistant_message: output.text,
      }, directory)
      if (answer && answer.decision === "block" && typeof answer.reason === "string") {
        await client.session.prompt({
          path: { id: input.sessionID },
          body: { noReply: true, parts: [{ type: "text", text: answer.reason }] },
        })
      }
    } catch {
      // A broken gate must never wedge the agent: the text stands.
    }
  },
})
