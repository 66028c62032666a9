package jinja

import (
	"reflect"
	"unsafe"
)

// WalkNodes visits every pointer reachable from root, a parsed template's
// node tree, once each and parents first, by reflection: gonja's own Walk
// stops at control structures. visit returns false to skip what the
// pointer holds. With unexported, unexported fields are entered too ({% set
// x = … %} keeps its expression in one); without, they are left alone
// (tokens, and the bodies of {% set %} blocks, which gonja prints itself).
func WalkNodes(root any, unexported bool, visit func(any) bool) {
	w := walker{unexported: unexported, visit: visit, seen: map[uintptr]bool{}}
	w.walk(reflect.ValueOf(root))
}

type walker struct {
	unexported bool
	visit      func(any) bool
	seen       map[uintptr]bool
}

func (w *walker) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || w.seen[v.Pointer()] {
			return
		}
		w.seen[v.Pointer()] = true
		if w.visit(v.Interface()) {
			w.walk(v.Elem())
		}
	case reflect.Interface:
		if !v.IsNil() {
			w.walk(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			if !f.CanInterface() && w.unexported && f.CanAddr() {
				f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
			}
			if f.CanInterface() {
				w.walk(f)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			w.walk(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			w.walk(v.MapIndex(k))
		}
	}
}
