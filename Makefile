BIN       := bin/zylos-memory
PREFIX    ?= $(HOME)/.local
ZYLOS_DIR ?= $(HOME)/zylos
# The main job `make run` starts after init: the scheduler daemon, in the
# foreground (Ctrl-C stops it). `make run MAIN_JOB=status` only reports.
MAIN_JOB  ?= scheduler run
FUZZTIME  ?= 10s
# Every hook is a fresh process, so start-up is paid on each call:
# - urfave_cli_no_docs leaves out urfave/cli's man-page and markdown
#   generators and their package init;
# - netgo, osusergo and sqlite_omit_load_extension leave no libc name
#   lookup or dlopen in the binary, so it can be linked statically: no
#   dynamic loader or relocation on each start (about 2 ms a process);
# - sqlite_fts5 compiles SQLite's full-text engine, which the recall index
#   (search, prompt-time retrieval) is built on.
# `make build LDFLAGS=` links dynamically where no static libc exists.
TAGS      := urfave_cli_no_docs,netgo,osusergo,sqlite_omit_load_extension,sqlite_fts5
LDFLAGS   ?= -extldflags=-static
VERSION   := $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
export GOFLAGS += -tags=$(TAGS)

# The end-to-end test runs the real Claude Code CLI, installed from the npm
# registry into E2E_DIR (outside the repository's tracked files).
E2E_DIR   ?= $(HOME)/.cache/zylos-memory-e2e
CLAUDE_CODE_VERSION ?= latest
# The linter, pinned so that CI and every machine judge the same way; the go
# command fetches it from the module proxy on first use.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: build test bench run install lint fuzz clean e2e e2e-client

# The MCP server and the secret scanner are binaries of their own
# (zylos-memory runs each from beside itself): the MCP SDK's and gitleaks'
# package inits stay out of the hooks.
build:
	go build -ldflags='$(LDFLAGS) -X main.version=$(VERSION)' -o $(BIN) ./cmd/zylos-memory
	go build -ldflags='$(LDFLAGS)' -o $(BIN)-mcp ./cmd/zylos-memory-mcp
	go build -ldflags='$(LDFLAGS)' -o $(BIN)-scan ./cmd/zylos-memory-scan

test:
	go vet ./...
	go test -timeout 30m ./...

bench:
	go test -run '^$$' -bench . -benchmem -timeout 30m ./...

run: build
	$(BIN) --zylos-dir "$(ZYLOS_DIR)" init
	$(BIN) --zylos-dir "$(ZYLOS_DIR)" $(MAIN_JOB)

install: build
	install -d "$(PREFIX)/bin"
	install -m 0755 $(BIN) "$(PREFIX)/bin/zylos-memory"
	install -m 0755 $(BIN)-mcp "$(PREFIX)/bin/zylos-memory-mcp"
	install -m 0755 $(BIN)-scan "$(PREFIX)/bin/zylos-memory-scan"

# internal/lint: outside cmd/, no code reads the environment, the working
# directory or the clock of its process (the memory service answers hooks
# for other processes).
lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	go vet ./...
	go run $(STATICCHECK) ./...
	go run ./internal/lint .

# Runs every fuzz target for FUZZTIME each.
fuzz:
	@for pkg in $$(go list ./...); do \
	  for target in $$(go test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$target"; \
	    go test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

clean:
	rm -rf bin

e2e-client:
	npm install --prefix "$(E2E_DIR)" --no-audit --no-fund --no-save @anthropic-ai/claude-code@$(CLAUDE_CODE_VERSION)
	"$(E2E_DIR)/node_modules/.bin/claude" --version

e2e: e2e-client
	CLAUDE_CODE_BIN="$(E2E_DIR)/node_modules/.bin/claude" go test -count=1 -v -run . -timeout 10m ./e2e/
