"""Set up a run (new or resumed) from a suite, its ``[live]`` table and command-line overrides.

Everything that can fail on bad input fails here, before a single sample starts and before
the cost confirmation: unknown profiles, a missing SDK or API key, unknown fixture ids, a suite
that changed under a resumed run.

Example:
    >>> Overrides().matrix_options()
    []
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from earnest import __version__
from earnest.errors import InputError
from earnest.live.batching import BatchRunner
from earnest.live.config import LiveConfig, live_config_from_table, parse_arms
from earnest.live.endpoint import is_local_url
from earnest.live.grants import FLAGS, user_config_path
from earnest.live.profiles import (
    TRUSTED_KEYS,
    Profile,
    check_allowed,
    parse_cli_profile,
    parse_spec,
)
from earnest.live.providers import Provider, ProviderUnavailable, make_provider
from earnest.live.providers.batch import BatchClient
from earnest.live.providers.batch_clients import make_batch_client
from earnest.live.runner import (
    Estimate,
    Observer,
    Prepared,
    Runner,
    RunResult,
    check_resumable,
    estimate,
    new_run_id,
    plan_samples,
    prepare,
    select_fixtures,
    suite_checksums,
)
from earnest.live.store import RunInfo, RunStore
from earnest.live.userconfig import UserConfig, load_user_config
from earnest.pressure.models import Suite
from earnest.pressure.suite import load_suite, with_citation


@dataclass(frozen=True, slots=True)
class Overrides:
    """Command-line options; ``None`` / empty means "as configured"."""

    profiles: tuple[str, ...] = ()
    base_url: str | None = None
    api_key_env: str | None = None
    """``--api-key-env``: the variable holding the key of every ``openai:``/``anthropic:``
    profile of the run."""
    allow_env: tuple[str, ...] = ()
    allow_network: tuple[str, ...] = ()
    allow_read: tuple[str, ...] = ()
    """``--allow-env``, ``--allow-network``, ``--allow-read``: added to every ``exec:``
    profile of the run (the user-only keys: :data:`earnest.live.profiles.TRUSTED_KEYS`)."""
    samples: int | None = None
    arms: str | None = None
    concurrency: int | None = None
    timeout: float | None = None
    retries: int | None = None
    backoff: float | None = None
    seed: int | None = None
    shuffle: bool | None = None
    max_cost: float | None = None
    fixtures: str | None = None
    act: bool | None = None
    confine: str | None = None
    """``--confine``: ``auto``, ``bwrap`` or ``none`` (:mod:`earnest.live.confine`)."""
    no_citation: bool = False
    """``--no-citation``: judge choice-only (``citation = "optional"``)."""
    batch: bool | None = None
    """``--batch``: through the providers' batch APIs (``earnest.live.batching``)."""
    batch_poll: float | None = None
    batch_wait: float | None = None
    """``--batch-wait``: the most seconds to wait for batches (``None``: until they end;
    ``0``: ``--no-wait``)."""

    def matrix_options(self) -> list[str]:
        """The options that would change which samples a run takes (refused on resume)."""
        names = {
            "profiles": "--profile",
            "samples": "--samples",
            "arms": "--arms",
            "seed": "--seed",
            "shuffle": "--no-shuffle",
            "fixtures": "--fixtures",
            "act": "--act",
        }
        return [flag for attr, flag in names.items() if getattr(self, attr) not in (None, ())]

    def trusted_argv(self) -> str:
        """The user-only options given, as a resume must repeat them (the store is not
        trusted with them: :func:`vouched`); ``""`` when none.

        Example:
            >>> Overrides(base_url="http://127.0.0.1:8000/v1", allow_env=("A",)).trusted_argv()
            ' --base-url http://127.0.0.1:8000/v1 --allow-env A'
        """
        import shlex

        out: list[str] = []
        for attr in ("base_url", "api_key_env", "allow_env", "allow_network", "allow_read"):
            value = getattr(self, attr)
            flag = "--" + attr.replace("_", "-")
            for item in [value] if isinstance(value, str) else value or ():
                out += [flag, shlex.quote(item)]
        return "".join(" " + part for part in out)


@dataclass
class RunPlan:
    suite: Suite
    config: LiveConfig
    run: RunInfo
    prepared: list[Prepared]
    pending: list[Prepared]
    providers: dict[str, Provider] = field(default_factory=dict)
    resumed: bool = False
    batch_clients: dict[str, BatchClient] = field(default_factory=dict)
    batch_wait: float | None = None
    in_batches: int = 0
    """Samples an open batch of this (resumed) run holds: polled, not submitted again."""
    warnings: list[str] = field(default_factory=list)
    """Printed before the run starts (an act run whose agents are not confined)."""

    @property
    def broken_fixture_files(self) -> list[Path]:
        """Fixture files that did not load (``earnest lint`` says why): left out of the run."""
        return [f.path for f in self.suite.fixture_files if f.fixture is None]

    @property
    def estimate(self) -> Estimate:
        return estimate(self.pending)


def _load_suite(suite_dir: Path, ov: Overrides) -> Suite:
    return with_citation(load_suite(suite_dir), "optional" if ov.no_citation else None)


def configured(suite: Suite, ov: Overrides, user: UserConfig | None = None) -> LiveConfig:
    """The run's configuration: the suite's ``[live]``, the user's own config (``user``,
    read from its file when not given: :mod:`earnest.live.userconfig`), then the command
    line. Only the last two may give the user-only profile keys."""
    cfg_file = suite.config.config_file
    prefix = "tool.earnest." if cfg_file.name == "pyproject.toml" else ""
    base = live_config_from_table(suite.config.raw.get("live"), file=cfg_file, prefix=prefix)
    if user is None:
        user = load_user_config()
    # A profile of the user's own replaces the suite's of the same name.
    known = {p.name: p for p in base.profiles} | dict(user.profiles)
    profiles = [known[p.name] for p in base.profiles]
    if ov.profiles:
        chosen: list[Profile] = []
        for text in ov.profiles:
            name, spec = parse_cli_profile(text)
            if spec is None:
                found = known.get(name)
                if found is None:
                    listed = ", ".join(known) or "none configured"
                    raise InputError(
                        cfg_file, "live.profiles", f"no profile named {name!r} (known: {listed})"
                    )
                chosen.append(found)
            else:
                chosen.append(parse_spec(name, spec, place="--profile"))
        names = [p.name for p in chosen]
        dup = next((n for n in names if names.count(n) > 1), None)
        if dup:
            raise InputError(None, "--profile", f"profile {dup!r} given twice")
        profiles = chosen
    if not profiles:
        raise InputError(
            cfg_file,
            "live.profiles",
            "no profiles: pass --profile NAME=PROVIDER:MODEL or add [live.profiles.NAME]",
        )
    profiles = [_from_command_line(user.apply(p), ov) for p in profiles]
    cfg = dataclasses.replace(base, profiles=tuple(profiles))
    changes: dict[str, object] = {}
    for attr in (
        "samples",
        "concurrency",
        "timeout",
        "retries",
        "backoff",
        "seed",
        "shuffle",
        "max_cost",
        "act",
        "batch",
        "batch_poll",
        "confine",
    ):
        value = getattr(ov, attr)
        if value is not None:
            changes[attr] = value
    if ov.confine is None and user.confine is not None:
        changes["confine"] = user.confine
    if ov.arms is not None:
        changes["arms"] = parse_arms(ov.arms, file=None, place="--arms")
    if ov.fixtures is not None:
        changes["fixtures"] = tuple(x.strip() for x in ov.fixtures.split(",") if x.strip())
    return dataclasses.replace(cfg, **changes)  # type: ignore[arg-type]


def _from_command_line(profile: Profile, ov: Overrides) -> Profile:
    """``profile`` with the user-only options of the command line applied."""
    changes: dict[str, object] = {}
    if profile.kind in ("openai", "anthropic"):
        if ov.base_url:
            changes.update(base_url=ov.base_url, keyless=False)
        if ov.api_key_env:
            if profile.keyless and not ov.base_url:
                raise InputError(
                    None,
                    "--api-key-env",
                    f"profile {profile.name}'s base URL ({profile.base_url}) comes from the "
                    "suite file, and a key goes only to a base URL you chose: add --base-url",
                )
            changes["api_key_env"] = ov.api_key_env
    if profile.kind == "exec":
        for key in ("allow_env", "allow_network", "allow_read"):
            given: tuple[str, ...] = getattr(ov, key)
            for item in given:
                check_allowed(key, item, file=None, place="--" + key.replace("_", "-"))
            if given:
                changes[key] = tuple(dict.fromkeys([*getattr(profile, key), *given]))
    return dataclasses.replace(profile, **changes) if changes else profile  # type: ignore[arg-type]


def _providers(config: LiveConfig, suite: Suite, base: Path) -> dict[str, Provider]:
    fixtures = {f.id: f for f in suite.fixtures}
    return {p.name: make_provider(p, base=base, fixtures=fixtures) for p in config.profiles}


def vouched(
    config: LiveConfig, user: UserConfig, ov: Overrides, *, store: Path, run_id: str
) -> LiveConfig:
    """The stored ``config`` of a resumed run, its user-only settings checked against what the
    user gives now (their config file, the command line): a run store is a file, and one
    committed to a repository could carry a ``base_url`` or ``api_key_env`` (where the prompts
    and a key go), an ``allow_*`` (what an agent reaches) or ``confine = "none"`` that the user
    never gave. A stored user-only setting that the user does not give again refuses the
    resume (:class:`InputError` naming the store, the run, the profile and the key, exit 2); a
    stored ``confine = "none"`` is dropped (``auto``) unless the user gives it.

    A suite's own local ``base_url`` (a server on this machine, sent no key) needs no vouching.
    """
    own = user.profiles
    profiles = []
    for stored in config.profiles:
        local = stored.keyless and stored.base_url is not None and is_local_url(stored.base_url)
        bare = dataclasses.replace(
            stored,
            base_url=stored.base_url if local else None,
            api_key_env=None,
            allow_env=(),
            allow_network=(),
            allow_read=(),
            keyless=local,
        )
        mine = own.get(stored.name)
        if mine is not None:  # a profile of the user's own: its settings, as in a new run
            bare = dataclasses.replace(bare, **{k: getattr(mine, k) for k in TRUSTED_KEYS})
            bare = dataclasses.replace(bare, keyless=mine.keyless)
        given = _from_command_line(user.apply(bare), ov)
        for key in TRUSTED_KEYS:
            held, now = getattr(stored, key), getattr(given, key)
            if held != now and held not in (None, ()):
                flag = FLAGS[key].split()[0]
                values = [held] if isinstance(held, str) else list(held)
                again = " ".join(f"{flag} {v}" for v in values)
                raise InputError(
                    store,
                    f"run {run_id}: profile {stored.name}: {key}",
                    f"the run store holds {key} = {', '.join(values)}, which you do not give "
                    "now; a store file may come from a repository, and only you choose where "
                    "the prompts and keys go and what an agent reaches. To resume with it, "
                    f"give it again: {again} (or in your own config, {user_config_path()}: "
                    f"[live.profiles.{stored.name}] {key} = ...)",
                )
            if held != now:
                raise InputError(
                    None,
                    FLAGS[key].split()[0],
                    f"you give {key} to profile {stored.name} (on the command line or in your "
                    f"config), but run {run_id} was run without it: a resumed run keeps the "
                    "settings it was run with",
                )
        profiles.append(given)
    confine = config.confine
    if confine == "none" and ov.confine is None and user.confine != "none":
        confine = "auto"
    return dataclasses.replace(config, profiles=tuple(profiles), confine=confine)


def plan_new(suite_dir: Path, ov: Overrides) -> RunPlan:
    """A new run: not stored until :func:`execute`."""
    suite = _load_suite(suite_dir, ov)
    config = configured(suite, ov)
    fixtures = select_fixtures(suite, config.fixtures)
    if not fixtures:
        raise InputError(suite.config.fixtures, None, "the suite has no loadable fixtures")
    checksums = suite_checksums(suite, fixtures)
    planned = plan_samples(suite, config)
    prepared = [prepare(suite, p, config, checksums) for p in planned]
    run = RunInfo(
        run_id=new_run_id(),
        suite_root=str(suite_dir.resolve()),
        config=config.to_dict(),
        checksums=checksums,
        total=len(prepared),
        earnest_version=__version__,
    )
    check_batch_options(config, ov)
    if config.batch:
        clients = _batch_clients(config, prepared)
        return RunPlan(
            suite, config, run, prepared, prepared, batch_clients=clients, batch_wait=ov.batch_wait
        )
    providers = _providers(config, suite, suite_dir)
    check_act_providers(prepared, providers)
    warnings = confine_agents(prepared, providers, config.confine)
    return RunPlan(suite, config, run, prepared, prepared, providers, warnings=warnings)


def check_batch_options(config: LiveConfig, ov: Overrides) -> None:
    """``--batch-wait``, ``--no-wait`` and ``--batch-poll`` say how to wait for batches: in a
    run without any they would silently do nothing, so they are refused (exit 2)."""
    if config.batch:
        return
    if ov.batch_wait is not None:
        flag = "--no-wait" if ov.batch_wait == 0 else "--batch-wait"
        raise InputError(None, flag, "applies to --batch runs only (add --batch)")
    if ov.batch_poll is not None:
        raise InputError(None, "--batch-poll", "applies to --batch runs only (add --batch)")


def _batch_clients(config: LiveConfig, prepared: list[Prepared]) -> dict[str, BatchClient]:
    """The batch client of every profile; refuses (exit 2) a sample to act out, which needs an
    agent in a workspace, not a batch of messages."""
    acted = next((p for p in prepared if p.act is not None), None)
    if acted is not None:
        raise ProviderUnavailable(
            f'fixture {acted.planned.fixture.id} is acted out (--act / mode = "act"): '
            "--batch sends messages only; run it without --batch"
        )
    return {p.name: make_batch_client(p) for p in config.profiles}


def plan_resume(store: RunStore, run_id: str, suite_dir: Path | None, ov: Overrides) -> RunPlan:
    """Resume ``run_id``: only samples not yet judged are taken (void ones are retried)."""
    fixed = ov.matrix_options()
    if fixed:
        raise InputError(
            None,
            fixed[0],
            "cannot change the matrix of a resumed run (it keeps its stored configuration)",
        )
    run = store.get_run(run_id)
    root = suite_dir if suite_dir is not None else Path(run.suite_root)
    suite = _load_suite(root, ov)
    stored = vouched(
        LiveConfig.from_dict(run.config),
        load_user_config(),
        ov,
        store=store.path,
        run_id=run_id,
    )
    changes: dict[str, object] = {}
    for attr in (
        "concurrency",
        "timeout",
        "retries",
        "backoff",
        "max_cost",
        "batch",
        "batch_poll",
        "confine",
    ):
        value = getattr(ov, attr)
        if value is not None:
            changes[attr] = value
    config = dataclasses.replace(stored, **changes)  # type: ignore[arg-type]
    fixtures = select_fixtures(suite, stored.fixtures)
    current = suite_checksums(suite, fixtures)
    check_resumable(run.checksums, current, run_id)
    planned = plan_samples(suite, config)
    if len(planned) != run.total:
        raise InputError(
            root, None, f"the suite no longer yields the {run.total} samples run {run_id} planned"
        )
    judged = set(store.iter_keys(run_id, judged_only=True))
    prepared = [prepare(suite, p, config, run.checksums) for p in planned]
    pending = [p for p in prepared if p.planned.key not in judged]
    check_batch_options(config, ov)
    if config.batch:
        held = {k for b in store.batches(run_id, open_only=True) for k in b.requests.values()}
        to_submit = [p for p in pending if p.planned.key not in held]
        clients = _batch_clients(config, pending) if pending else {}
        return RunPlan(
            suite,
            config,
            run,
            prepared,
            to_submit,
            resumed=True,
            batch_clients=clients,
            batch_wait=ov.batch_wait,
            in_batches=len(pending) - len(to_submit),
        )
    providers = _providers(config, suite, root) if pending else {}
    check_act_providers(pending, providers)
    warnings = confine_agents(pending, providers, config.confine)
    return RunPlan(
        suite, config, run, prepared, pending, providers, resumed=True, warnings=warnings
    )


def check_act_providers(prepared: list[Prepared], providers: dict[str, Provider]) -> None:
    """Refuse (exit 2) a run that asks a provider with no tools to act a fixture out."""
    for p in prepared:
        provider = providers.get(p.planned.profile.name)
        acts = getattr(provider, "can_act", hasattr(provider, "act"))
        if p.act is not None and provider is not None and not acts:
            raise ProviderUnavailable(
                f"profile {p.planned.profile.name} ({p.planned.profile.spec}) cannot act fixture "
                f"{p.planned.fixture.id} out: only exec: agents run in a workspace "
                "(and replay: replays recorded acted-out samples)"
            )


def confine_agents(
    prepared: list[Prepared], providers: dict[str, Provider], mode: str
) -> list[str]:
    """Decide how the ``exec:`` agents are confined (:mod:`earnest.live.confine`), acting in
    their copies or completing in an empty folder, and tell them; the warnings of an
    unconfined run. ``confine = "bwrap"`` that cannot be had here is refused
    (:class:`ProviderUnavailable`, exit 2) before anything runs."""
    from earnest.live.confine import ConfineUnavailable, resolve, unconfined_warning

    acting = {
        p.planned.profile.name: p.planned.profile
        for p in prepared
        if p.planned.profile.kind == "exec"
    }
    if not acting:  # no agent runs here (a replay: replays what was recorded, runs nothing)
        return []
    acts = any(p.act is not None for p in prepared if p.planned.profile.kind == "exec")
    try:
        confinement = resolve(mode)
    except ConfineUnavailable as exc:
        raise ProviderUnavailable(str(exc)) from None
    if confinement.confined:
        import os
        from pathlib import Path

        from earnest.live.netgate import endpoints

        home = Path(os.environ.get("HOME") or Path.home())
        for name, profile in acting.items():
            try:  # a base URL the gate cannot let through: refused before anything runs
                endpoints(profile, os.environ, home)
            except ValueError as exc:
                raise ProviderUnavailable(f"profile {name}: cannot confine it: {exc}") from None
    for name in acting:
        provider = providers.get(name)
        if provider is not None and hasattr(provider, "confinement"):
            provider.confinement = confinement
    loose = {n: p.preset or "" for n, p in acting.items()}
    warning = unconfined_warning(confinement, loose, act=acts)
    return [warning] if warning else []


def execute(plan: RunPlan, store: RunStore, observer: Observer | None = None) -> RunResult:
    """Store the run (if new) and take its pending samples; returns when all are stored, the
    budget stops it, or it is interrupted (``KeyboardInterrupt`` propagates after marking it)."""
    if not plan.resumed:
        store.create_run(plan.run)
    runner = Runner(
        suite=plan.suite,
        run=plan.run,
        config=plan.config,
        store=store,
        providers=plan.providers,
        prepared=plan.prepared,
        observer=observer,
    )

    async def main() -> RunResult:
        try:
            if plan.config.batch:
                return await BatchRunner(
                    runner, plan.batch_clients, wait=plan.batch_wait, poll=plan.config.batch_poll
                ).run()
            return await runner.run()
        finally:
            for p in plan.providers.values():
                await p.aclose()
            for c in plan.batch_clients.values():
                await c.aclose()

    try:
        return asyncio.run(main())
    except (KeyboardInterrupt, asyncio.CancelledError):
        store.set_status(plan.run.run_id, "interrupted")
        raise


__all__ = [
    "Overrides",
    "RunPlan",
    "configured",
    "confine_agents",
    "execute",
    "plan_new",
    "plan_resume",
    "vouched",
]
