# goeval — build, test, demo, benchmarks and reference parity.
# `make demo` and `make test` are the two set-up commands of the README.

GO        ?= go
BIN       := bin/goeval
VENV      := .venv
PY        := $(VENV)/bin/python
DEMO_DIR  := demo

.PHONY: all build test fuzz test-browser demo bench parity hub-test scale-test venv vet fmt clean wheel-venv wheels wheels-check python-test

all: build

# The commit is stamped at link time: Go's own VCS stamp is off where
# GOFLAGS has -buildvcs=false, and absent outside a checkout.
GIT_HASH  := $(shell git describe --always --dirty --abbrev=40 --match=NONE 2>/dev/null)
LDFLAGS   := -X github.com/goeval/goeval/internal/buildinfo.gitHash=$(GIT_HASH)

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/goeval

vet:
	$(GO) vet ./...

fmt:
	gofmt -l -w .

# Unit, golden, model-parity and CLI tests. Needs no Python, npm or network:
# every reference output is a committed golden file.
test:
	$(GO) vet ./...
	CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/goeval  # no cgo: builds, with no XLA device
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/goeval  # the Windows wheel's binary
	$(GO) test -count=1 -timeout 20m ./...
	# Weights change layout in place (internal/gocpu/weights.go): concurrent executions under -race.
	$(GO) test -count=1 -race -run 'TestWeights|TestConcurrent' ./internal/gocpu ./internal/gemm
	# Evaluations with different task indexes share a process (tasks.Index): under -race.
	$(GO) test -count=1 -race -run 'TestEvaluateIndexesApart' .
	$(MAKE) --no-print-directory fuzz

# Every fuzz target of the parsers of user input for FUZZTIME each, one
# worker (make fuzz FUZZTIME=10m for a long run). Failing inputs land in the
# package's testdata/fuzz/.
FUZZTIME  ?= 5s
fuzz:
	GO=$(GO) ./scripts/fuzz.sh $(FUZZTIME)

# The HTML report rendered by headless Chromium (installs Debian's chromium).
test-browser:
	./scripts/install-chromium.sh
	GOEVAL_BROWSER_TEST=1 $(GO) test -count=1 -run TestHTMLInChromium ./report/charts

# The embedded default: a generated tiny model, synthetic datasets, the
# pure-Go backend, several tasks, a summary table.
demo: build
	./scripts/demo.sh $(BIN) $(DEMO_DIR)

# Throughput benchmarks (not part of `make test`).
bench: build
	$(GO) test -run '^$$' -bench . -benchtime 3x ./bench/

# Shards under real schedulers on this machine (not part of `make test`):
# a Slurm cluster (Debian's slurm-wlm and munge) and a Ray cluster (PyPI's
# ray, its own venv) on loopback each run a 4-shard evaluation, merge it
# and re-run a shard killed mid-run; each merge must equal the one-process
# run. The Kubernetes examples are validated against the schemas.
scale-test: build
	./scripts/scale_test.sh $(BIN)

# The Python reference engines, pinned: torch's wheels with its CUDA
# runtime take ~6.5 GB installed, installed a large wheel at a time so that
# the downloads do not double that at the peak (scripts/pip_install_lock.sh).
venv: $(VENV)/.installed
$(VENV)/.installed: parity/requirements.lock
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	./scripts/pip_install_lock.sh $(VENV) parity/requirements.lock
	touch $@

# Regenerates every golden file from the live references (transformers,
# tokenizers, lm-eval, llama.cpp) and fails on any difference.
parity: venv build
	./scripts/parity.sh

# The Hub client against a real Hub-compatible server (olah, in its own
# venv .venv-hub) and huggingface_hub's cache both ways (~1 min).
hub-test: venv build
	./scripts/hub_test.sh $(BIN)

# Python: wheels carrying the binary (python/build_wheels.py; zig from PyPI
# cross-compiles the linux ones with cgo), their checks, and the package's
# tests in a clean venv with the host's wheel installed.
WHEEL_VENV      := .venv-wheels
WHEEL_PLATFORMS ?= linux-x86_64,linux-aarch64,macos-arm64,macos-x86_64,windows-x86_64
wheel-venv: $(WHEEL_VENV)/.installed
$(WHEEL_VENV)/.installed: python/requirements-wheels.lock
	rm -rf $(WHEEL_VENV)
	python3 -m venv $(WHEEL_VENV)
	$(WHEEL_VENV)/bin/pip install -q -r python/requirements-wheels.lock
	touch $@

wheels: wheel-venv
	rm -rf dist
	$(WHEEL_VENV)/bin/python python/build_wheels.py --out dist --platforms $(WHEEL_PLATFORMS) --git-hash $(GIT_HASH)

# Platform tags (auditwheel, wheel, delocate), sizes, `file`, and the
# binaries run under qemu-user and wine where installed.
wheels-check: wheel-venv
	WHEEL_VENV=$(WHEEL_VENV) ./scripts/check_wheels.sh dist

# The Trainer tests borrow torch, transformers and peft from the venv of
# parity/requirements.lock (make venv; PY_DEPS_VENV=DIR names another one);
# PYTHON_TEST_TRAINER=0 leaves them out.
PYTHON_TEST_TRAINER ?= 1
PY_DEPS_VENV        ?= $(VENV)
python-test: wheel-venv $(if $(filter 1,$(PYTHON_TEST_TRAINER)),$(if $(filter $(VENV),$(PY_DEPS_VENV)),venv))
	WHEEL_VENV=$(WHEEL_VENV) GIT_HASH=$(GIT_HASH) PYTHON_TEST_TRAINER=$(PYTHON_TEST_TRAINER) \
		PY_DEPS_VENV=$(PY_DEPS_VENV) ./scripts/python_test.sh

clean:
	rm -rf bin $(DEMO_DIR) dist build
