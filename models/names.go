package models

import "fmt"

// Tensor names are stated once per architecture: its file declares every
// checkpoint tensor into a tensorTable (name → shape) and keeps the names
// the declarations return in per-layer structs, which its graph code reads
// the weights through. The same declaring function gives Arch.Tensors its
// list and Arch.New its names, so the list and the graph cannot disagree.

// embedName is the token embedding every architecture here has (and the
// LM head's weight when tie_word_embeddings); weights.go keeps it in the
// checkpoint's layout since it is gathered by row.
const embedName = "model.embed_tokens.weight"

// tensorTable is the tensors an architecture declares, name → shape
// (Hugging Face layout: Linear weights are [out, in]).
type tensorTable map[string][]int

// add declares tensor name of the given shape and returns the name.
func (t tensorTable) add(name string, shape ...int) string {
	t[name] = shape
	return name
}

// linearW names a Linear layer's tensors: weight [out, in] and bias [out]
// ("" without one).
type linearW struct{ weight, bias string }

// linear declares module's weight [out, in] and, withBias, its bias [out].
func (t tensorTable) linear(module string, out, in int, withBias bool) linearW {
	l := linearW{weight: t.add(module+".weight", out, in)}
	if withBias {
		l.bias = t.add(module+".bias", out)
	}
	return l
}

// gatedW names a gated MLP's projections (mlp.gate_proj, up_proj,
// down_proj, bias-free).
type gatedW struct{ gate, up, down linearW }

// gatedMLP declares prefix's gated MLP for hidden size h and intermediate
// size f.
func (t tensorTable) gatedMLP(prefix string, h, f int) gatedW {
	return gatedW{gate: t.linear(prefix+"gate_proj", f, h, false), up: t.linear(prefix+"up_proj", f, h, false),
		down: t.linear(prefix+"down_proj", h, f, false)}
}

// endsW names the tensors around the decoder layers that most
// architectures share: the token embedding, the final norm
// (model.norm.weight) and the LM head's weight (lm_head.weight, or the
// embedding when tied).
type endsW struct{ embed, norm, head string }

// ends declares the shared outer tensors of c.
func (t tensorTable) ends(c *Config) endsW {
	e := endsW{embed: t.add(embedName, c.VocabSize, c.HiddenSize), norm: t.add("model.norm.weight", c.HiddenSize)}
	e.head = e.embed
	if !c.TieWordEmbeddings {
		e.head = t.add("lm_head.weight", c.VocabSize, c.HiddenSize)
	}
	return e
}

// layerPrefix is the checkpoint prefix of decoder layer i.
func layerPrefix(i int) string { return fmt.Sprintf("model.layers.%d.", i) }

// tensorsOf is Arch.Tensors for an architecture's declaring function.
func tensorsOf[T any](declare func(t tensorTable, c *Config) T) func(c *Config) map[string][]int {
	return func(c *Config) map[string][]int {
		t := tensorTable{}
		declare(t, c)
		return t
	}
}
