package models

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/safetensors"
)

// peftPrefix starts every tensor name PEFT's save_pretrained writes for a
// causal LM.
const peftPrefix = "base_model.model."

// loraPart is one parsed adapter tensor name.
type loraPart struct {
	module string // "model.layers.0.self_attn.q_proj"
	kind   string // "A", "B", "Bbias", "embA", "embB", or "" for a full tensor
}

// parseLoRAName splits an adapter tensor name (prefix already removed) into
// module and part; ".default" (the adapter name in a live state dict) and
// ".base_layer" (a wrapped module's own parameters) are dropped.
func parseLoRAName(name string) (loraPart, string) {
	n := strings.ReplaceAll(name, ".default.", ".")
	n = strings.TrimSuffix(n, ".default")
	n = strings.ReplaceAll(n, ".base_layer.", ".")
	n = strings.ReplaceAll(n, ".modules_to_save.", ".")
	for _, s := range []struct{ suffix, kind string }{
		{".lora_A.weight", "A"}, {".lora_B.weight", "B"}, {".lora_B.bias", "Bbias"},
		{".lora_embedding_A", "embA"}, {".lora_embedding_B", "embB"},
	} {
		if m, ok := strings.CutSuffix(n, s.suffix); ok {
			return loraPart{module: m, kind: s.kind}, n
		}
	}
	return loraPart{}, n
}

// readTensors reads every tensor of the adapter file, pairs lora_A with
// lora_B per module and checks each against the base checkpoint.
func (a *Adapter) readTensors(set *safetensors.Set, base Tensors) error {
	src := set.Source()
	match, _ := a.Config.targetMatcher() // validated in readAdapterConfig
	parts := map[string]map[string][]float32{}
	shapes := map[string]map[string][]int{}
	for _, name := range set.Names() {
		rest, ok := strings.CutPrefix(name, peftPrefix)
		if !ok {
			return errs.BadInputf("%s: tensor %q does not start with %q; not a PEFT causal-LM adapter", src, name, peftPrefix)
		}
		if strings.Contains(rest, "lora_magnitude_vector") {
			return errs.BadInputf("%s: tensor %q is a DoRA magnitude; DoRA adapters are not supported", src, name)
		}
		info, _ := set.Info(name)
		data, err := set.Float32(name)
		if err != nil {
			return err
		}
		data = slices.Clone(data) // the set is unmapped when loading ends
		p, clean := parseLoRAName(rest)
		if p.kind == "" {
			var keep bool
			if clean, keep = renamedAs(base, clean); !keep {
				continue // a tensor text never reaches (a multimodal checkpoint's vision tower)
			}
			if err := a.addReplacement(src, name, clean, data, info.Shape, base); err != nil {
				return err
			}
			continue
		}
		if _, keep := renamedAs(base, p.module+".weight"); !keep {
			continue // a module text never reaches
		}
		if !match(p.module) {
			return errs.BadInputf("%s: tensor %q adapts module %q, which target_modules %s in %s does not match",
				src, name, p.module, string(a.Config.TargetModules), AdapterConfigFile)
		}
		if parts[p.module] == nil {
			parts[p.module], shapes[p.module] = map[string][]float32{}, map[string][]int{}
		}
		parts[p.module][p.kind], shapes[p.module][p.kind] = data, info.Shape
	}
	modules := make([]string, 0, len(parts))
	for m := range parts {
		modules = append(modules, m)
	}
	sort.Strings(modules)
	for _, m := range modules {
		l, err := a.buildLayer(src, m, parts[m], shapes[m], base)
		if err != nil {
			return err
		}
		a.Layers[l.Weight] = l
	}
	return nil
}

// addReplacement records a full tensor (modules_to_save, or a bias saved
// with bias "all"/"lora_only") that replaces the base tensor of that name.
func (a *Adapter) addReplacement(src, name, clean string, data []float32, shape []int, base Tensors) error {
	isBias := strings.HasSuffix(clean, ".bias")
	saved := false
	for _, m := range a.Config.ModulesToSave {
		if clean == m+".weight" || clean == m+".bias" || strings.HasSuffix(clean, "."+m+".weight") || strings.HasSuffix(clean, "."+m+".bias") {
			saved = true
		}
	}
	if !saved && !(isBias && a.Config.Bias != "" && a.Config.Bias != "none") {
		return errs.BadInputf("%s: tensor %q is neither a lora_A/lora_B factor, a modules_to_save module nor a trained bias; unknown adapter tensor", src, name)
	}
	info, ok := base.Info(clean)
	if !ok {
		return errs.BadInputf("%s: tensor %q replaces base tensor %q, which %s does not have", src, name, clean, base.Source())
	}
	if !slices.Equal(info.Shape, shape) {
		return errs.BadInputf("%s: tensor %q has shape %v but base tensor %q has shape %v", src, name, shape, clean, info.Shape)
	}
	a.Replace[clean], a.shapes[clean] = data, shape
	return nil
}

// buildLayer checks one module's factors against its base weight:
//
//	linear:    A [r, in], B [out, r], W [out, in]
//	embedding: A [r, vocab], B [dim, r], W [vocab, dim]
func (a *Adapter) buildLayer(src, m string, p map[string][]float32, sh map[string][]int, base Tensors) (*LoRALayer, error) {
	emb := p["embA"] != nil || p["embB"] != nil
	ka, kb := "A", "B"
	if emb {
		ka, kb = "embA", "embB"
	}
	if p[ka] == nil || p[kb] == nil {
		return nil, errs.BadInputf("%s: module %q has only one of its two LoRA factors (lora_A and lora_B are both needed)", src, m)
	}
	sa, sb := sh[ka], sh[kb]
	if len(sa) != 2 || len(sb) != 2 || sa[0] != sb[1] {
		return nil, errs.BadInputf("%s: module %q: lora_A shape %v and lora_B shape %v do not form a rank-r pair ([r,in] and [out,r])", src, m, sa, sb)
	}
	w, _ := renamedAs(base, m+".weight") // the base's name for the weight; the patterns match m
	l := &LoRALayer{Module: strings.TrimSuffix(w, ".weight"), Weight: w, A: p[ka], B: p[kb], Rank: sa[0], In: sa[1], Out: sb[0], Embedding: emb}
	if want := a.Config.rankFor(m); l.Rank != want {
		return nil, errs.BadInputf("%s: module %q has rank %d but %s says r=%d", src, m, l.Rank, AdapterConfigFile, want)
	}
	l.Scale = a.Config.scaleFor(m, l.Rank)
	info, ok := base.Info(l.Weight)
	if !ok {
		return nil, errs.BadInputf("%s: LoRA module %q adapts %q, which %s does not have (tied lm_head? unknown module?)", src, m, l.Weight, base.Source())
	}
	want := []int{l.Out, l.In}
	if emb {
		want = []int{l.In, l.Out}
	}
	if !slices.Equal(info.Shape, want) {
		return nil, errs.BadInputf("%s: module %q: LoRA factors give a %v update but base tensor %q is %v", src, m, want, l.Weight, info.Shape)
	}
	if bb := p["Bbias"]; bb != nil {
		if len(bb) != l.Out {
			return nil, errs.BadInputf("%s: module %q: lora_B.bias has %d values, want %d", src, m, len(bb), l.Out)
		}
		if _, ok := base.Info(m + ".bias"); !ok {
			return nil, errs.BadInputf("%s: module %q has lora_B.bias but the base has no %s.bias", src, m, m)
		}
		l.BiasDelta = make([]float32, l.Out)
		for i, v := range bb {
			l.BiasDelta[i] = float32(l.Scale * float64(v))
		}
	}
	return l, nil
}

// String summarises the adapter for logs.
func (a *Adapter) String() string {
	return fmt.Sprintf("LoRA %s: %d modules, r=%d, alpha=%g, rslora=%v, %d replaced tensors",
		a.Dir, len(a.Layers), a.Config.R, a.Config.LoraAlpha, a.Config.UseRSLoRA, len(a.Replace))
}
