"""The shell classifier's vocabulary, as plain text tables (easy to read, diff and extend).

:data:`SUB_TABLES` maps a tool to its sub-commands' kinds. In :data:`_SUBCOMMANDS` a line
without indentation names the tool (and its aliases); each indented line is a kind followed by
the sub-commands of that kind; ``(none)`` stands for "no sub-command". Kinds are the check
kinds (``test lint typecheck build check``), the delta kinds (``write edit delete format
install vcs deploy``), ``read`` (no effect), ``unknown``, and directives: ``format?`` (a
formatter unless a check flag is given), ``script`` (the next word is a script name judged by
:func:`earnest.effects.shell.script_kind`), ``wrap`` (the rest is a command), ``targets``
(build targets), ``new`` (creates what its first argument names).

Example:
    >>> SUB_TABLES["cargo"]["nextest"], SUB_TABLES["apt-get"]["install"], SUB_TABLES["bundle"][""]
    ('test', 'install', 'install')
"""

from __future__ import annotations


def words(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text`` as a set."""
    return frozenset(text.split())


READ_ONLY = words(
    """
    ls ll la dir vdir cat bat batcat less more most head tail grep egrep fgrep rg ag ack fd
    fdfind locate mlocate wc echo printf stat pwd which whereis type whence du df file tree
    cut tr jq diff cmp comm basename dirname realpath readlink date cal whoami id groups uname
    hostname printenv true false test [ [[ sleep wait ps pgrep top htop history man info help
    pushd popd dirs export set unset shopt alias unalias exit return break continue local
    declare typeset readonly let read md5sum sha1sum sha224sum sha256sum sha384sum sha512sum
    shasum cksum b2sum xxd hexdump od strings nl column fold fmt paste join tac rev seq yes
    ldd nm objdump readelf nproc free uptime lsof netstat ss ip ifconfig ping dig nslookup host
    http https lscpu lsblk vmstat iostat clear tput stty tty logname users w who last getent
    locale expr bc dc factor numfmt shuf tldr open xdg-open : cd lsattr getfacl namei pstree
    jobs fg bg disown trap umask ulimit hash tsort look zcat zless zgrep bzcat xzcat lz4cat
    zstdcat pdftotext pdfinfo identify ffprobe exiftool command sw_vers vm_stat
    system_profiler fdesetup csrutil sysctl mdfind mdls kill killall pkill nvidia-smi
    """
)
"""Command words that only read, or act outside the workspace without changing it (``kill``),
given no output redirection; see the special cases."""

TEST_HEADS = words(
    """
    pytest nosetests nose2 tox nox jest vitest mocha ava tap karma jasmine phpunit pest rspec
    ctest trial ward cucumber behave robot bats testem gotestsum cargo-nextest
    """
)
LINT_HEADS = words(
    """
    flake8 pylint pyflakes pycodestyle pydocstyle bandit vulture shellcheck hadolint yamllint
    markdownlint markdownlint-cli2 stylelint golangci-lint staticcheck revive cppcheck semgrep
    actionlint oxlint tflint swiftlint detekt checkov ansible-lint htmlhint jshint tslint
    commitlint editorconfig-checker typos codespell eslint rubocop ktlint standard xo sqlfluff
    mdl clang-tidy cpplint biome luacheck credo pylama prospector darglint interrogate deptry
    pip-audit safety lychee proselint vale textlint gitleaks trufflehog detect-secrets
    """
)
TYPECHECK_HEADS = words("mypy dmypy pyright basedpyright pytype pyre tsc vue-tsc flow")

WRAPPERS_PLAIN = words("nohup builtin unbuffer chronic caffeinate xvfb-run noglob exec")
NPX = words("npx pnpx bunx uvx")
NPX_OPTS = words("-p --package --from --with --python -c --call")
PY_MODULES_READ = words("http.server json.tool pydoc site sysconfig platform this timeit")


def _flag_table(text: str) -> dict[str, frozenset[str]]:
    table: dict[str, frozenset[str]] = {}
    for line in text.strip().splitlines():
        name, _, flags = line.partition(":")
        table[name.strip()] = words(flags)
    return table


WRAPPER_OPTS = _flag_table(
    """
    sudo: -u -g -h -p -C -D -U -r -t -T --user
    doas: -u -C
    env: -u --unset -C --chdir -S --split-string
    nice: -n --adjustment
    ionice: -c -n -p --class --classdata
    time: -f -o --format --output
    stdbuf: -i -o -e
    timeout: -s -k --signal --kill-after
    command:
    """
)
"""Wrappers that run their arguments, with the options that take a value."""

RUNNER_OPTS = _flag_table(
    """
    uv: --with --python -p --project --directory --package --extra --group --env-file --index --from --with-requirements
    poetry: -C --directory -P --project
    pipenv:
    pdm: -p --project
    hatch: -e --env
    rye:
    pixi: -e --environment
    conda: -n --name -p --prefix
    mamba: -n --name -p --prefix
    micromamba: -n --name -p --prefix
    bundle:
    pnpm: -C --dir --filter -F
    yarn: --cwd
    npm: -w --workspace --prefix -C
    pipx: --spec
    """
)
RUNNER_SUBS = _flag_table(
    """
    uv: run
    poetry: run
    pipenv: run
    pdm: run
    hatch: run
    rye: run
    pixi: run exec
    conda: run
    mamba: run
    micromamba: run
    bundle: exec
    pnpm: exec dlx
    yarn: dlx exec
    npm: exec x
    pipx: run
    """
)
"""Runners (``uv run X``) that run a command given after one of these sub-commands."""

FIX_FLAGS = _flag_table(
    """
    eslint: --fix
    stylelint: --fix
    rubocop: -a -A --autocorrect --autocorrect-all --auto-correct
    codespell: -w --write-changes
    typos: -w --write-changes
    ktlint: -F --format
    biome: --write --apply --fix --apply-unsafe
    xo: --fix
    standard: --fix
    oxlint: --fix
    clang-tidy: --fix -fix
    markdownlint: --fix
    markdownlint-cli2: --fix
    swiftlint: --fix --autocorrect
    sqlfluff: fix
    """
)
"""Linters that also rewrite files when given one of these flags (or sub-commands)."""

FORMAT_BY_DEFAULT = _flag_table(
    """
    black: --check --diff
    isort: --check --check-only -c --diff
    rustfmt: --check
    stylua: --check
    pyupgrade:
    nixfmt: --check -c
    alejandra: --check -c
    scalafmt: --test --list
    swiftformat: --lint
    ormolu: --mode=check
    fourmolu: --mode=check
    ruff-format: --check --diff
    add-trailing-comma:
    """
)
"""Formatters that rewrite files unless given one of these check flags."""

FORMAT_WRITE_FLAGS = _flag_table(
    """
    prettier: --write -w
    autopep8: -i --in-place
    yapf: -i --in-place
    clang-format: -i
    gofmt: -w
    goimports: -w
    shfmt: -w --write
    autoflake: -i --in-place
    docformatter: -i --in-place
    djlint: --reformat
    """
)
FORMAT_CHECK_FLAGS = _flag_table(
    """
    prettier: --check -c -l --list-different
    autopep8: --exit-code
    yapf: -d --diff
    clang-format: --dry-run -n --Werror
    gofmt: -l -d
    goimports: -l -d
    shfmt: -d -l --diff --list
    autoflake: -c --check
    docformatter: -c --check
    djlint: --check --lint
    """
)
"""Formatters that only print unless given a write flag (check flags make them linters)."""

SCRIPT_RULES: tuple[tuple[frozenset[str], str], ...] = (
    (words("test tests spec specs e2e unit integration coverage cov jest vitest mocha cypress "
           "playwright pytest"), "test"),
    (words("lint eslint stylelint ruff flake8 pylint clippy"), "lint"),
    (words("typecheck types tsc typescript mypy pyright typing"), "typecheck"),
    (words("build compile bundle all dist package"), "build"),
    (words("check verify ci validate precommit qa audit"), "check"),
    (words("dev start serve server watch preview storybook run help list info status show "
           "version"), "read"),
    (words("clean clear purge distclean"), "delete"),
    (words("install setup bootstrap deps update upgrade sync"), "install"),
    (words("deploy release publish push upload"), "deploy"),
    (words("gen generate codegen migrate migrations scaffold init"), "write"),
)  # fmt: skip
"""Script and target names by their words: ``test:unit`` → test, ``dev`` → read, ..."""
FIX_WORDS = words("fix write apply autofix")
FORMAT_WORDS = words("format fmt prettier prettify black isort autoformat")
CHECK_WORDS = words("check verify ci lint")

GIT_READ = words(
    """
    status diff log show blame annotate rev-parse rev-list ls-files ls-tree ls-remote describe
    shortlog grep cat-file show-ref show-branch count-objects fsck for-each-ref name-rev
    merge-base whatchanged help version check-ignore check-attr var cherry range-diff
    verify-commit verify-tag difftool request-pull get-tar-commit-id diff-tree diff-files
    diff-index
    """
)
GIT_LISTING = _flag_table(
    """
    stash: list show
    remote: -v --verbose show get-url
    worktree: list
    notes: list show
    submodule: status summary
    bisect: log visualize view
    lfs: ls-files status env logs
    reflog: show
    sparse-checkout: list
    """
)
"""Git sub-commands that only list or show with these actions (anything else changes state)."""
GIT_VCS = words(
    """
    commit add merge rebase reset push pull fetch apply am cherry-pick revert switch gc prune
    update-index update-ref commit-tree mktag replace filter-branch format-patch repack
    maintenance stage symbolic-ref read-tree write-tree checkout-index merge-file mergetool
    archive bundle
    """
)
GIT_GLOBAL_VALUE = words("-C -c --git-dir --work-tree --namespace --exec-path --config-env")
GIT_BRANCH_WRITE = words(
    "-d -D --delete -m -M --move -c -C --copy -f --force -u --set-upstream-to --unset-upstream "
    "--edit-description --track --no-track"
)
GIT_BRANCH_VALUE = words(
    "--contains --no-contains --merged --no-merged --points-at --sort --format --column"
)

READ_ACTIONS = words(
    """
    list ls view show status diff checks search browse watch info get describe logs log top
    explain version inspect images ps outdated why config whoami tree doctor env help
    """
)
"""Second-level actions that only read (``gh pr view``, ``kubectl get`` ...)."""

NPM_INSTALL = words(
    "install i ci add uninstall remove rm un update up upgrade link unlink dedupe prune rebuild patch"
)
NPM_READ = words(
    """
    ls list ll la view info show outdated why explain config get root bin prefix whoami search
    help docs repo bugs doctor ping query fund licenses cache store --version -v env exec-env
    start dev serve
    """
)

_SUBCOMMANDS = """
cargo
  test      test t nextest bench llvm-cov tarpaulin miri
  build     check c build b doc
  lint      clippy
  format?   fmt
  install   add remove rm install uninstall update fetch generate-lockfile
  new       new
  write     init vendor
  delete    clean
  format    fix
  deploy    publish
  unknown   run r
  read      tree metadata search outdated expand
  check     audit deny machete udeps
go
  test      test
  lint      vet
  build     build
  format    fmt fix
  install   get install mod
  write     generate
  unknown   run tool
  read      env list doc
  edit      work
  delete    clean
dotnet
  test      test
  build     build publish pack msbuild
  format?   format
  install   restore add remove tool
  write     new
  unknown   run watch
  delete    clean
  read      list
  edit      sln
swift
  test      test
  build     build
  unknown   run
  install   package
  format?   format
mix
  test      test
  build     compile
  format?   format
  lint      credo
  typecheck dialyzer
  install   deps.get deps.update
  write     ecto.migrate
  read      phx.server
  unknown   run
  new       new
bazel bazelisk buck2
  test      test coverage
  build     build
  unknown   run
  read      query cquery aquery info
  delete    clean
  install   fetch mod
stack
  test      test
  build     build
  install   install setup
  unknown   run exec ghci
  new       new
cabal
  test      test
  build     build
  install   install update
  unknown   run exec repl
  write     init
  lint      check
zig
  test      test
  targets   build
  format?   fmt
  unknown   run
  write     init
  build     build-exe build-lib
  lint      ast-check
meson
  test      test
  build     compile dist
  new       setup
  edit      configure
  install   install
  read      introspect
rake
  test      test spec
  unknown   (none)
rails
  test      test spec
  write     generate g db:migrate
  new       new
  read      server s routes
  unknown   console c runner
bundle
  install   install update add remove (none) lock
  wrap      exec
  read      check list show outdated config
composer
  install   install update require remove
  test      test
  script    run-script run
  lint      validate lint
  read      show outdated check-platform-reqs
  write     dump-autoload
  new       create-project
  check     audit
poetry
  install   install add remove update lock sync self
  wrap      run
  lint      check
  build     build
  read      show env version config export search shell
  new       new
  write     init
  deploy    publish
  edit      source
pdm
  install   install add remove update lock sync
  wrap      run
  build     build
  read      list show info export
  write     init
  deploy    publish
hatch
  test      test
  wrap      run
  build     build
  format?   fmt
  read      env shell version status project dep
  new       new
  deploy    publish
  delete    clean
rye
  wrap      run
  test      test
  lint      lint check
  format?   fmt
  install   sync add remove lock
  build     build
  write     init
  deploy    publish
  read      show list
pixi
  wrap      run exec
  install   add remove install update
  write     init
  read      list info tree task shell search
conda mamba micromamba
  install   install create remove uninstall update upgrade env
  wrap      run
  read      list info search activate deactivate config
  delete    clean
gem
  install   install uninstall update
  build     build
  read      list search info env which contents
  deploy    push
brew
  install   install uninstall remove rm upgrade reinstall tap untap link unlink update cleanup services bundle pin unpin
  read      list ls info search outdated deps uses doctor config home leaves desc --prefix --cellar cat
apt apt-get
  install   install remove purge upgrade update autoremove full-upgrade dist-upgrade reinstall build-dep
  read      search show list policy depends rdepends changelog
  write     download source
dnf yum apk zypper snap port choco winget scoop pkg pacman
  install   install remove erase add del upgrade update uninstall -S -R -U -Sy -Syu
  read      search info list show -Q -Ss -Si
docker podman
  build     build buildx
  unknown   run exec compose
  read      ps images logs inspect version info history search stats top diff port events context image container
  deploy    push tag rm rmi create start stop kill restart volume network system login commit
  install   pull load
  write     cp save
kubectl
  read      get describe logs explain top api-resources api-versions cluster-info diff auth events wait port-forward config
  unknown   exec
  write     cp
  deploy    run apply create delete patch edit scale rollout set label annotate replace expose autoscale drain cordon taint
helm
  lint      lint
  read      template list ls status get show search history env
  deploy    install upgrade uninstall rollback push
  install   repo dependency
  build     package
  test      test
  new       create
  write     pull
  check     verify
terraform tofu
  lint      validate
  read      plan show output state version providers graph workspace console
  format?   fmt
  deploy    apply destroy import taint untaint refresh login
  install   init get
  test      test
pre-commit
  check     run (none) try-repo
  install   install uninstall autoupdate install-hooks
  delete    clean gc
  lint      validate-config validate-manifest
  read      sample-config
  edit      migrate-config
flutter
  test      test drive
  lint      analyze
  build     build
  format?   format
  install   pub upgrade
  unknown   run
  read      doctor devices
  new       create
  delete    clean
dart
  test      test
  lint      analyze
  build     compile doc
  format?   format
  install   pub
  unknown   run
  new       create
  format    fix
sbt
  test      test
  build     compile package assembly
  unknown   run
  delete    clean
  format    scalafmt
  lint      scalafmtCheck
ninja
  build     (none) all
  test      test check
  delete    clean
  install   install
  read      -t
nvm
  install   install uninstall alias
  read      use ls list current which ls-remote
rustup
  install   install update toolchain target component default override self set
  read      show which doc check
  unknown   run
mvn
  test      test verify integration-test
  build     compile test-compile package install site
  check     validate
  delete    clean
  deploy    deploy
gradle
  test      test connectedCheck integrationTest
  check     check
  build     build assemble jar compileJava compileKotlin installDist
  lint      lint spotlessCheck ktlintCheck detekt
  delete    clean
  unknown   run bootRun
  read      dependencies tasks projects properties
  format    spotlessApply ktlintFormat
  deploy    publish
xcodebuild
  test      test test-without-building
  build     build build-for-testing archive (none)
  lint      analyze
  delete    clean
  read      -list -showBuildSettings -version
cmake
  build     --build
  install   --install
  unknown   -E -P
  write     (none) -S -B
  read      --version
defaults
  read      read read-type domains find
  deploy    write delete import rename
launchctl
  read      list print blame print-disabled
  deploy    load unload bootstrap bootout enable disable kickstart start stop
diskutil
  read      info list activity
tmutil
  read      latestbackup destinationinfo listbackups status
log
  read      show stream
shortcuts
  read      list view
  unknown   run
next
  build     build export
  lint      lint
  read      dev start info (none)
vite
  build     build
  read      (none) dev serve preview optimize
nuxt nuxi
  build     build generate
  read      dev preview info
  typecheck typecheck
astro
  build     build
  typecheck check
  read      dev preview
  install   add
webpack rollup esbuild tsup parcel babel swc rspack
  build     (none) build
  read      serve dev watch
deno
  test      test bench
  lint      lint
  typecheck check
  format?   fmt
  build     compile bundle
  unknown   run eval repl
  script    task
  install   install add remove upgrade
  read      info doc
  write     init
"""


def _parse_subcommands(text: str) -> dict[str, dict[str, str]]:
    tables: dict[str, dict[str, str]] = {}
    current: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        if not line[0].isspace():
            current = {}
            for tool in line.split():
                tables[tool] = current
            continue
        kind, *subs = line.split()
        for sub in subs:
            current[sub.replace("(none)", "")] = kind
    return tables


SUB_TABLES = _parse_subcommands(_SUBCOMMANDS)
"""tool → sub-command (``""`` for none) → kind."""

SUB_VALUE_OPTS = words(
    """
    -C --manifest-path -p --package -n --name --prefix -f --file -B --build-dir --target -j
    --jobs -c --config -s --scheme -workspace -project -scheme -destination -configuration
    -sdk --cwd --dir -w --workspace --filter -F --project
    """
)
"""Options (of the tools in :data:`SUB_TABLES`) whose next word is their value."""

GETTER_TOOLS = words("pmset systemsetup networksetup socketfilterfw sips scutil")
"""System tools that only read when every option is a getter (``-g``, ``-get...``, ``-list...``)."""

HEAD_KINDS = {
    "git-filter-repo": "vcs", "bfg": "vcs", "pre-commit-hook": "check", "iconutil": "write",
    "terraform-docs": "write", "protoc": "write", "openapi-generator": "write",
}  # fmt: skip
"""Command words with a single kind whatever their arguments."""

HEAD_ALIASES = {
    "gradlew": "gradle", "mvnw": "mvn", "py.test": "pytest", "nodejs": "node",
    "bazelisk": "bazel", "pnpx": "npx", "bunx": "npx", "pypy": "python", "pypy3": "python",
    "py": "python",
}  # fmt: skip
KEYWORDS = words("if then else elif do while until ! { time coproc")
SKIP_PARTS = words("fi done esac } for select case function in")
NULL_SINKS = words("/dev/null /dev/stdout /dev/stderr /dev/tty -")
WRITE_REDIRECTS = words("> >> >| &> &>> <>")
