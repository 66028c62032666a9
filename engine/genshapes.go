package engine

import (
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/goeval/goeval/engine/plan"
)

// Generation's graph shapes where each costs a compile. A prefill graph is
// sized per admission (rows: a power of two; length: the longest admitted
// prompt's bucket), so on XLA one gsm8k run compiled 9 shapes: 43 s of
// its 66 on an H100, where a padded prefill row costs next to nothing. On
// a GPU (fixedShapes) each group's prefills therefore take one length,
// its longest prompt's bucket, and one of two row counts: its full
// admission or a single row (a row freed mid-run). The shapes a call will
// need — decode, each shared prefix's prefill, each group's two prefill
// shapes — then compile together before it starts (compileGeneration);
// elsewhere decode and the prefixes do, and other prefill shapes compile
// when first met. There, too, the decode cache keeps its shape from one
// call of a run to the next (stickyShape), and a scoring call's passes
// take one shape per kind (planopts.go's uniformSlack).

// fixedShapes reports whether graph shapes are fixed as on a GPU: prefills
// take their group's fixed shapes, the decode cache is kept from call to
// call, a scoring call's passes take one shape per kind where that pads
// little.
func (e *Engine) fixedShapes() bool { return e.fixShapes || e.device.Device == "cuda" }

// fixPrefillShapes sets each group's fixed prefill rows and length for a
// cache c.
func (e *Engine) fixPrefillShapes(items []genItem, groups []genGroup, c *kvCache) {
	for g := range groups {
		grp := &groups[g]
		t := e.prefillT(len(items[grp.members[0]].ctx)-e.skipOf(*grp), c.S)
		rows := floorPow2(max(1, e.prefillBudget()/t))
		grp.fixP, grp.fixT = plan.BucketB(min(rows, len(grp.members), c.B), c.B), t
	}
}

// fixedDims are the rows and length of a prefill of n admitted prompts in
// a group with fixed shapes.
func (grp genGroup) fixedDims(n int) (p, t int) {
	if n == 1 {
		return 1, grp.fixT
	}
	return grp.fixP, grp.fixT
}

// skipOf is the prompt tokens a group's prefills skip: its shared prefix
// when it is computed once, else 0 (startRows).
func (e *Engine) skipOf(grp genGroup) int {
	if grp.prefix == 0 || !e.opts.packing() {
		return 0
	}
	return grp.prefix
}

// compileGeneration compiles ahead the generation shapes a call is known to
// need (see above), where shapes cost a compile.
func (e *Engine) compileGeneration(gs *genState, items []genItem, groups []genGroup, c *kvCache) error {
	if e.cheapShapes() {
		return nil
	}
	i32 := func(dims ...int) *tensors.Tensor { return tensors.FromShape(shapes.Make(dtypes.Int32, dims...)) }
	sel := func(n int) *tensors.Tensor { return tensors.FromShape(shapes.Make(dtypes.Bool, n)) }
	var jobs []compileJob
	add := func(g *graphExecs, kind string, b int, args []any, caches ...*kvCache) {
		key := genKey(kind, args[0].(*tensors.Tensor).Shape(), b, c.S)
		for _, x := range caches {
			for _, t := range x.t {
				args = append(args, t)
			}
		}
		jobs = append(jobs, compileJob{g, key, args})
	}
	add(gs.decode, "decode", c.B, []any{i32(c.B), i32(c.B)}, c)
	var row *kvCache // a one-row cache: the shared prefixes' shape
	defer func() {
		if row != nil {
			row.close()
		}
	}()
	for _, grp := range groups {
		skip := e.skipOf(grp)
		if skip > 0 {
			if row == nil {
				var err error
				if row, err = e.newCache(1, c.S); err != nil {
					return err
				}
			}
			t := e.prefillT(skip, c.S)
			add(gs.prefill, "prefill", 1, []any{i32(1, t), i32(1), i32(1), sel(1)}, row)
		}
		if grp.fixP == 0 {
			continue
		}
		for _, p := range []int{grp.fixP, 1} {
			if skip > 0 {
				add(gs.extend, "extend", c.B, []any{i32(p, grp.fixT), i32(p, grp.fixT), i32(p), i32(c.B), sel(c.B)}, row, c)
			} else {
				add(gs.prefill, "prefill", c.B, []any{i32(p, grp.fixT), i32(p), i32(c.B), sel(c.B)}, c)
			}
		}
	}
	return e.compileAhead(jobs)
}
