package env

// The table: every environment variable goeval reads or sets in
// production code, one def each. docs/ENVIRONMENT.md has the same rows
// (names, groups and defaults are checked by doc_test.go); add a variable
// here and there together.

// goeval's own variables.
var (
	Device = def(Var{Name: "GOEVAL_DEVICE", Group: Goeval, Default: "auto",
		Doc:    "the device when --device (engine.Options.Device) is not given: auto, cpu, xla-cpu or cuda",
		ReadBy: "engine",
		Sets:   "in test binaries only: internal/testutil.Main sets cpu unless it is set (even empty)"})
	CompileWorkers = def(Var{Name: "GOEVAL_COMPILE_WORKERS", Group: Goeval, Default: "one per CPU, at most 8",
		Doc:    "how many shapes XLA compiles at once (1: one after the other); not a positive number: the default",
		ReadBy: "engine"})
	CUDATF32 = def(Var{Name: "GOEVAL_CUDA_TF32", Group: Goeval, Default: "off",
		Doc:    "1 keeps XLA's TF32 float32 products on CUDA (faster, ~1e-3 relative error) instead of IEEE float32: goeval then sets neither NVIDIA_TF32_OVERRIDE nor --xla_gpu_enable_triton_gemm",
		ReadBy: "engine"})
	CUDAPreallocate = def(Var{Name: "GOEVAL_CUDA_PREALLOCATE", Group: Goeval, Default: "off",
		Doc:    "1 lets the CUDA plugin take 75% of the GPU's memory at start; else the pool grows on demand",
		ReadBy: "engine"})
	CompileCache = def(Var{Name: "GOEVAL_COMPILE_CACHE", Group: Goeval, Default: "<user cache dir>/goeval/xla",
		Doc:    "the folder that keeps XLA's compiled executables between runs (xla-cpu and cuda); off keeps none (--compile-cache)",
		ReadBy: "engine", Sets: "in test binaries only: internal/testutil.Main sets off unless it is set (even empty)"})
	PJRTDir = def(Var{Name: "GOEVAL_PJRT_DIR", Group: Goeval, Default: "<user cache dir>/goeval/pjrt",
		Doc:    "the folder of the pinned PJRT plugins that goeval setup (or xla-cpu's first use) installs",
		ReadBy: "pjrt"})
	PJRTURL = def(Var{Name: "GOEVAL_PJRT_URL", Group: Goeval, Default: "the pinned wheel's PyPI address",
		Doc:    "another address of the same plugin wheel (a mirror); its hashes are checked all the same",
		ReadBy: "pjrt"})
	Offline = def(Var{Name: "GOEVAL_OFFLINE", Group: Goeval, Default: "off",
		Doc:    "1, true, yes or on: no PJRT plugin download (xla-cpu needs one installed)",
		ReadBy: "pjrt"})
	CPUProfile = def(Var{Name: "GOEVAL_CPUPROFILE", Group: Goeval, Default: "off",
		Doc:    "for developers: write a pprof CPU profile of the whole command to this file",
		ReadBy: "cmd/goeval"})
	OpProfile = def(Var{Name: "GOEVAL_OP_PROFILE", Group: Goeval, Default: "off",
		Doc:    "for developers: print the N costliest ops of the pure-Go backend to stderr when the command ends",
		ReadBy: "cmd/goeval"})
	MemProfile = def(Var{Name: "GOEVAL_MEM_PROFILE", Group: Goeval, Default: "off",
		Doc:    "for developers: 1, true, yes or on prints the largest working set of intermediates one execution of the pure-Go backend held, and the values live at its peak, to stderr when the command ends",
		ReadBy: "cmd/goeval"})
	ProgressInterval = def(Var{Name: "GOEVAL_PROGRESS_INTERVAL", Group: Goeval, Default: "30s",
		Doc:    "how often goeval run logs progress when stderr is not a terminal (a Go duration or seconds)",
		ReadBy: "cmd/goeval"})
	VMath = def(Var{Name: "GOEVAL_VMATH", Group: Goeval, Default: "the CPU's widest kernel",
		Doc:    "go forces the Go kernels of exp, logistic and SiLU; avx2 forces AVX2 on an AVX-512 CPU (read at start)",
		ReadBy: "internal/vmath"})
	Shard = def(Var{Name: "GOEVAL_SHARD", Group: Goeval, Default: "none",
		Doc:    "goeval run's --shard when the flag is not given: INDEX/COUNT, or auto (the scheduler's task index: SLURM_ARRAY_TASK_ID, else JOB_COMPLETION_INDEX)",
		ReadBy: "cmd/goeval"})
	ShardCount = def(Var{Name: "GOEVAL_SHARD_COUNT", Group: Goeval, Default: "SLURM_ARRAY_TASK_COUNT",
		Doc:    "with --shard auto: the number of shards (a Kubernetes Indexed Job's pods get no variable with its completions; a re-submitted Slurm array task has a count of 1)",
		ReadBy: "cmd/goeval"})
	GemmKernel = def(Var{Name: "GOEVAL_GEMM_KERNEL", Group: Goeval, Default: "the CPU's widest kernel that passes its self-check",
		Doc:    "the pure-Go backend's matmul kernel: avx512, avx2 or go (read at first use)",
		ReadBy: "internal/gemm"})
)

// Hugging Face's variables, with huggingface_hub's precedence (tasks reads
// only HF_HUB_CACHE, then HF_HOME, for datasets).
var (
	HFEndpoint = def(Var{Name: "HF_ENDPOINT", Group: HuggingFace, Default: "https://huggingface.co",
		Doc: "the Hub server (a mirror)", ReadBy: "hub"})
	HFToken = def(Var{Name: "HF_TOKEN", Group: HuggingFace, Default: "none",
		Doc: "the Hub token (gated and private repositories)", ReadBy: "hub"})
	HuggingFaceHubToken = def(Var{Name: "HUGGING_FACE_HUB_TOKEN", Group: HuggingFace, Default: "none",
		Doc: "the legacy name of HF_TOKEN, read when HF_TOKEN is not set", ReadBy: "hub"})
	HFTokenPath = def(Var{Name: "HF_TOKEN_PATH", Group: HuggingFace, Default: "$HF_HOME/token",
		Doc: "the file `huggingface-cli login` writes, read when neither token variable is set", ReadBy: "hub"})
	HFHome = def(Var{Name: "HF_HOME", Group: HuggingFace, Default: "$XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface",
		Doc:    "Hugging Face's folder: the hub cache is its hub/, the token file its token",
		ReadBy: "hub, tasks (tasks: ~/.cache/huggingface when unset)"})
	HFHubCache = def(Var{Name: "HF_HUB_CACHE", Group: HuggingFace, Default: "$HF_HOME/hub",
		Doc:    "the hub cache of models and datasets; tasks search it for datasets (after --data-dir and the folder goeval run fetched into)",
		ReadBy: "hub, tasks"})
	HuggingFaceHubCache = def(Var{Name: "HUGGINGFACE_HUB_CACHE", Group: HuggingFace, Default: "$HF_HOME/hub",
		Doc: "the legacy name of HF_HUB_CACHE, read when HF_HUB_CACHE is not set", ReadBy: "hub"})
	HFHubOffline = def(Var{Name: "HF_HUB_OFFLINE", Group: HuggingFace, Default: "off",
		Doc: "1, ON, YES or TRUE: the hub cache only, no network", ReadBy: "hub"})
	TransformersOffline = def(Var{Name: "TRANSFORMERS_OFFLINE", Group: HuggingFace, Default: "off",
		Doc: "as HF_HUB_OFFLINE", ReadBy: "hub"})
)

// XDGCacheHome is where the Hugging Face folder lives when HF_HOME is not
// set (and the user cache folder of GOEVAL_PJRT_DIR's default, which Go's
// os.UserCacheDir reads).
var XDGCacheHome = def(Var{Name: "XDG_CACHE_HOME", Group: System, Default: "~/.cache",
	Doc: "the user cache folder: HF_HOME's and GOEVAL_PJRT_DIR's default are under it", ReadBy: "hub (pjrt through os.UserCacheDir)"})

// XLA's, PJRT's and CUDA's variables.
var (
	GoMLXBackend = def(Var{Name: "GOMLX_BACKEND", Group: XLA, Default: "none",
		Doc:    "a GoMLX backend spec that --device auto uses as is (e.g. xla:/abs/plugin.so); go or go:OPTIONS runs --device cpu on GoMLX's simplego",
		ReadBy: "engine"})
	PJRTPluginLibraryPath = def(Var{Name: "PJRT_PLUGIN_LIBRARY_PATH", Group: XLA, Default: "none",
		Doc:    "folders searched first for pjrt_c_api_{cpu,cuda}_plugin.so",
		ReadBy: "engine"})
	GoPJRTCUDAChecks = def(Var{Name: "GOPJRT_CUDA_CHECKS", Group: XLA, Default: "0 (goeval sets it)",
		Doc:          "go-xla's check of the NVIDIA libraries beside the CUDA plugin; goeval turns it off (go-xla v0.1.4 would point XLA at a developer's home)",
		ReadBy:       "go-xla",
		Sets:         "when an XLA backend is created, unless set to a non-empty value: 0",
		EmptyIsUnset: true})
	NvidiaTF32Override = def(Var{Name: "NVIDIA_TF32_OVERRIDE", Group: XLA, Default: "0 on CUDA (goeval sets it)",
		Doc:    "0 switches TF32 off in cuBLAS, so float32 products stay IEEE float32 (log-probs within goeval's 1e-4 of transformers')",
		ReadBy: "CUDA libraries",
		Sets:   "when a CUDA backend is created, unless GOEVAL_CUDA_TF32=1 or it is set (even empty): 0"})
	XLAFlags = def(Var{Name: "XLA_FLAGS", Group: XLA, Default: "--xla_gpu_enable_triton_gemm=false --xla_disable_hlo_passes=triton-softmax-rewriter on CUDA (goeval adds them)",
		Doc:    "XLA's own flags; goeval keeps XLA's Triton GEMMs (TF32 at default precision) out of float32 products, and disables the HLO pass triton-softmax-rewriter, most of a scoring graph's compile on a GPU (2.3 s instead of 13–15 s at Qwen2.5-0.5B's shape on an H100, as fast to run), and gives XLA's CPU plugin the N devices of --xla_force_host_platform_device_count=N (else 1)",
		ReadBy: "XLA, engine",
		Sets:   "when a CUDA backend is created: appends --xla_gpu_enable_triton_gemm=false unless GOEVAL_CUDA_TF32=1 or XLA_FLAGS already names the option; adds triton-softmax-rewriter to the last --xla_disable_hlo_passes list (a new one when there is none) unless that list is empty (the user's choice of none)"})
)

// The schedulers' variables that --shard auto reads.
var (
	SlurmArrayTaskID = def(Var{Name: "SLURM_ARRAY_TASK_ID", Group: Slurm, Default: "none",
		Doc: "a job array task's index: with --shard auto, the shard (the array must be --array=0-(N-1))", ReadBy: "cmd/goeval"})
	SlurmArrayTaskCount = def(Var{Name: "SLURM_ARRAY_TASK_COUNT", Group: Slurm, Default: "none",
		Doc: "the number of tasks in the job array: with --shard auto, the shard count unless GOEVAL_SHARD_COUNT is set", ReadBy: "cmd/goeval"})
	SlurmArrayTaskMin = def(Var{Name: "SLURM_ARRAY_TASK_MIN", Group: Slurm, Default: "none",
		Doc: "the job array's lowest index: --shard auto checks it is 0 when the count is SLURM_ARRAY_TASK_COUNT", ReadBy: "cmd/goeval"})
	JobCompletionIndex = def(Var{Name: "JOB_COMPLETION_INDEX", Group: Kubernetes, Default: "none",
		Doc: "an Indexed Job's pod index (0 to completions-1): with --shard auto and no SLURM_ARRAY_TASK_ID, the shard; the count comes from GOEVAL_SHARD_COUNT", ReadBy: "cmd/goeval"})
)

// The other programs' variables goeval reads.
var (
	OpenAIAPIKey = def(Var{Name: "OPENAI_API_KEY", Group: OpenAI, Default: "none",
		Doc:    "the bearer key for OpenAI-compatible APIs (goeval run --model-type openai-*, goeval judge)",
		ReadBy: "cmd/goeval"})
	GoMemLimit = def(Var{Name: "GOMEMLIMIT", Group: Go, Default: "goeval's limit for the weights",
		Doc:    "the Go runtime's soft memory limit; when set (or set by the program), goeval sets none of its own (1.3 × the weights + 256 MiB)",
		ReadBy: "engine, the Go runtime"})
	VirtualEnv = def(Var{Name: "VIRTUAL_ENV", Group: Python, Default: "none",
		Doc:    "the active Python virtual environment, the first Python searched for JAX's CUDA plugin (jax_plugins/xla_cuda{13,12})",
		ReadBy: "engine"})
)
