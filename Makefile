BIN       := bin/zylos-memory
PREFIX    ?= $(HOME)/.local
ZYLOS_DIR ?= $(HOME)/zylos
# The main job `make run` starts after init: the scheduler daemon, in the
# foreground (Ctrl-C stops it). `make run MAIN_JOB=status` only reports.
MAIN_JOB  ?= scheduler run
FUZZTIME  ?= 10s
# urfave/cli's man-page and markdown generators (and their markdown parser's
# package init) are never used: leaving them out trims every process start.
export GOFLAGS += -tags=urfave_cli_no_docs

.PHONY: build test bench run install lint fuzz clean

build:
	go build -o $(BIN) ./cmd/zylos-memory

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

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	go vet ./...

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
