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

# PREFIX, DESTDIR and COMMIT reach the shell as environment variables, quoted
# there ("$$PREFIX"), never pasted into a command line: no value can turn one
# path into several (PREFIX='x" "/path/file" "' made uninstall delete
# /path/file). A value holding a quote, a backslash, a dollar sign, a
# backquote or a line break is refused outright, as is a COMMIT of other than
# letters, digits and . _ + -.
export PREFIX DESTDIR COMMIT

CHECK_PATHS = for value in "$$PREFIX" "$$DESTDIR"; do \
	  case "$$value" in *[\"\'\\\`\$$]*) \
	    printf "Makefile: error: expected PREFIX and DESTDIR without quotes, backslashes, dollar signs or backquotes, found '%s'\n" "$$value" >&2; exit 64;; \
	  esac; \
	  if [ "$$(printf '%s' "$$value" | wc -l)" -ne 0 ]; then \
	    echo "Makefile: error: expected PREFIX and DESTDIR on one line, found a line break" >&2; exit 64; \
	  fi; \
	done

# Exists only while make builds (it is in .gitignore): a plain `swift build`
# needs no generated file and reports the version number alone.
STAMP = Sources/backtest/BuildCommit.generated.swift

.PHONY: all build install uninstall check-paths

all: build

build:
	@set -e; \
	case "$$COMMIT" in *[!0-9A-Za-z._+-]*) \
	  printf "Makefile: error: expected COMMIT of letters, digits and . _ + -, found '%s'\n" "$$COMMIT" >&2; exit 64;; \
	esac; \
	if [ -n "$$COMMIT" ]; then \
	  printf '%s\n' '// Written by make for this build (see the Makefile); removed after it.' 'import BacktestCore' '' \
	    'extension BacktestVersion: _BuildCommit {' "  public static var buildCommit: String { \"$$COMMIT\" }" '}' > $(STAMP); \
	fi; \
	trap 'rm -f $(STAMP)' EXIT; trap 'exit 1' INT TERM; \
	$(SWIFT) build -c $(CONFIGURATION) --product backtest

install: check-paths build
	Tools/install.sh "$$($(SWIFT) build -c $(CONFIGURATION) --show-bin-path)" "$$DESTDIR$$PREFIX"

uninstall: check-paths
	rm -f "$$DESTDIR$$PREFIX/bin/backtest" "$$DESTDIR$$PREFIX/bin/backtest-fetch" \
	  "$$DESTDIR$$PREFIX/share/bash-completion/completions/backtest" \
	  "$$DESTDIR$$PREFIX/share/zsh/site-functions/_backtest" \
	  "$$DESTDIR$$PREFIX/share/fish/vendor_completions.d/backtest.fish"

check-paths:
	@$(CHECK_PATHS)
