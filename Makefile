# Builds the command-line tools and installs backtest and backtest-fetch side
# by side, with shell completions (see Tools/install.sh):
#
#   make install PREFIX=~/.local        # default PREFIX: /usr/local
#   make uninstall PREFIX=~/.local
#
# DESTDIR stages an install for a package; CONFIGURATION=debug installs the
# debug build (what CI checks, without a release build).

PREFIX ?= /usr/local
DESTDIR ?=
CONFIGURATION ?= release
SWIFT ?= swift

# The commit the binary records in BacktestVersion (backtest --version):
# from git in a checkout, with .dirty for uncommitted changes to tracked
# files; empty (unknown) without git. Set COMMIT=... to give it yourself.
COMMIT ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)$(shell git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo .dirty)

# Exists only while make builds (it is in .gitignore): a plain `swift build`
# needs no generated file and reports the version number alone.
STAMP = Sources/backtest/BuildCommit.generated.swift

.PHONY: all build install uninstall

all: build

build:
	@set -e; \
	if [ -n "$(COMMIT)" ]; then \
	  printf '%s\n' '// Written by make for this build (see the Makefile); removed after it.' 'import BacktestCore' '' \
	    'extension BacktestVersion: _BuildCommit {' '  public static var buildCommit: String { "$(COMMIT)" }' '}' > $(STAMP); \
	fi; \
	trap 'rm -f $(STAMP)' EXIT; trap 'exit 1' INT TERM; \
	$(SWIFT) build -c $(CONFIGURATION) --product backtest

install: build
	Tools/install.sh "$$($(SWIFT) build -c $(CONFIGURATION) --show-bin-path)" "$(DESTDIR)$(PREFIX)"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/backtest" "$(DESTDIR)$(PREFIX)/bin/backtest-fetch" \
	  "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/backtest" \
	  "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_backtest" \
	  "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/backtest.fish"
