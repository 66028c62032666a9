package models

import (
	"github.com/goeval/goeval/models/safetensors"
)

// Tensors is a checkpoint's tensors as the loader reads them: a
// *safetensors.Set, or a view over one that presents each bitsandbytes
// 4-bit, 8-bit, GPTQ or AWQ weight as the dense tensor it stands for
// (bnbSet, intQuantSet). Names, Info and
// the readers see the same tensors; CheckTensors, the weight loader, LoRA
// adapters and Inspect all go through it.
type Tensors interface {
	// Source is the file or index that was opened, for messages.
	Source() string
	// Files lists the mapped files.
	Files() []string
	// Names lists the tensor names, sorted.
	Names() []string
	// Info describes tensor name (ok false: no such tensor).
	Info(name string) (safetensors.TensorInfo, bool)
	// Float32 returns tensor name as float32 values; a slice that aliases
	// a file mapping must not be written.
	Float32(name string) ([]float32, error)
	// BF16Into writes tensor name into dst as bfloat16 bit patterns,
	// rounded to nearest even, calling done with mapped bytes it has read.
	BF16Into(name string, dst []uint16, done func(raw []byte)) error
	// Close releases the mappings.
	Close() error
}

var _ Tensors = (*safetensors.Set)(nil)

// OpenTensors maps the safetensors checkpoint in dir as cfg describes it:
// the file set itself, or for a bitsandbytes 4-bit checkpoint
// (cfg.Quantization) the view that dequantizes its weights when read:
// bnbSet for bitsandbytes 4-bit, intQuantSet for GPTQ, AWQ and
// bitsandbytes 8-bit.
// An unsupported quantization is one bad-input error.
func OpenTensors(dir string, cfg *Config) (Tensors, error) {
	if err := cfg.Quantization.Supported(configName(cfg)); err != nil {
		return nil, err
	}
	set, err := openCheckpoint(dir, cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Quantization == nil {
		return set, nil
	}
	var view Tensors
	if q := cfg.Quantization; q.Method == "bitsandbytes" && q.LoadIn4Bit {
		view, err = newBnbSet(set, q)
	} else {
		view, err = newIntQuantSet(set, q)
	}
	if err != nil {
		set.Close()
		return nil, err
	}
	return view, nil
}
