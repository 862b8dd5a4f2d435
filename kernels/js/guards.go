package js

import "fmt"
import "math"
import "reflect"
import "strconv"

import "github.com/dop251/goja"

// Guards on built-ins that build a result in proportion to a length in one
// native call, which goja cannot interrupt: a sparse array (new Array(1e9))
// or an empty pattern makes a huge result from little. Each is estimated from
// lengths alone (no toString runs, nothing is copied) and refused with a
// RangeError when the result alone would pass the cap. They are Go functions
// standing in for the built-ins: a JavaScript wrapper made hot loops of
// split and join over three times slower. (repeat, padStart, padEnd, fill,
// Array.from and the typed-array constructors are guarded in prelude.js.)

// lengthOf is the length property of an object, or 0.
func lengthOf(v goja.Value) float64 {
	o, ok := v.(*goja.Object)
	if !ok {
		return 0
	}
	l := o.Get("length")
	if l == nil {
		return 0
	}
	return l.ToFloat()
}

// stringLength is the length of a primitive string, and whether v is one.
func stringLength(v goja.Value) (float64, bool) {
	if s, ok := v.(goja.String); ok {
		return float64(s.Length()), true
	}
	return 0, false
}

// maxWalk bounds how many values an estimate looks at: past it, the rest
// are counted at the smallest size they can have.
const maxWalk = 1 << 20

// charBytes is the memory a string of n UTF-16 units takes in goja: a byte
// each when it is ASCII, two otherwise.
func charBytes(s goja.String) float64 {
	if reflect.TypeOf(s).Name() == "asciiString" {
		return float64(s.Length())
	}
	return 2 * float64(s.Length())
}

// joinedBytes estimates the string an array's join builds: each element's
// string (a primitive string's own length; a number about 24 bytes; any
// other value, whose toString is not run, at least nothing) and the
// separators. It looks at the first maxWalk elements at most, and stops
// once past stop.
func joinedBytes(arr goja.Value, sep float64, stop float64) float64 {
	n := lengthOf(arr)
	total := math.Max(n-1, 0) * sep
	o, ok := arr.(*goja.Object)
	if !ok {
		return total
	}
	for i := 0; i < int(math.Min(n, maxWalk)) && total <= stop; i++ {
		total += valueBytes(o.Get(strconv.Itoa(i)))
	}
	return total
}

// valueBytes is the least memory v's string form takes.
func valueBytes(v goja.Value) float64 {
	switch x := v.(type) {
	case goja.String:
		return charBytes(x)
	case nil:
		return 0
	}
	if goja.IsNumber(v) {
		return 24
	}
	return 0
}

// jsonBytes estimates what JSON.stringify makes of v: the strings, numbers
// and holes it holds, in arrays and objects down to depth 64, looking at
// maxWalk values at most (budget) and stopping once past stop.
func jsonBytes(v goja.Value, depth int, budget *int, stop float64) float64 {
	*budget--
	if *budget < 0 || depth > 64 {
		return 0
	}
	switch x := v.(type) {
	case goja.String:
		return charBytes(x) + 2
	case *goja.Object:
		total := 2.0
		if isArray(x) {
			n := lengthOf(x)
			total += 5 * n // "null," for each hole
			for i := 0; i < int(math.Min(n, maxWalk)) && total <= stop && *budget >= 0; i++ {
				total += jsonBytes(x.Get(strconv.Itoa(i)), depth+1, budget, stop)
			}
			return total
		}
		if x.ClassName() != "Object" {
			return total
		}
		for _, k := range x.Keys() {
			if total > stop || *budget < 0 {
				break
			}
			total += float64(len(k)) + 4 + jsonBytes(x.Get(k), depth+1, budget, stop)
		}
		return total
	}
	if goja.IsNumber(v) {
		return 8
	}
	return 4
}

func isArray(v goja.Value) bool {
	o, ok := v.(*goja.Object)
	return ok && o.ClassName() == "Array"
}

// installGuards replaces the guarded built-ins of the session's runtime.
func (s *session) installGuards(limit int64) error {
	vm := s.vm
	rangeError, ok := vm.Get("RangeError").(*goja.Object)
	if !ok {
		return fmt.Errorf("kernels: js: no RangeError")
	}
	arrayProto := vm.Get("Array").(*goja.Object).Get("prototype").(*goja.Object)
	stringProto := vm.Get("String").(*goja.Object).Get("prototype").(*goja.Object)
	json := vm.Get("JSON").(*goja.Object)
	guard := func(obj *goja.Object, name string, size func(c goja.FunctionCall) float64) error {
		return s.guardBuiltin(rangeError, obj, name, limit, size)
	}
	sep := func(v goja.Value) float64 {
		if goja.IsUndefined(v) {
			return 1
		}
		if l, ok := stringLength(v); ok {
			return l
		}
		return 1
	}
	for _, g := range []struct {
		obj  *goja.Object
		name string
		size func(c goja.FunctionCall) float64
	}{
		{arrayProto, "join", func(c goja.FunctionCall) float64 {
			return joinedBytes(c.This, sep(argAt(c, 0)), float64(limit))
		}},
		{stringProto, "concat", func(c goja.FunctionCall) float64 {
			total := 0.0
			if s, ok := c.This.(goja.String); ok {
				total = charBytes(s)
			}
			for _, a := range c.Arguments {
				total += valueBytes(a)
			}
			return total
		}},
		{arrayProto, "concat", func(c goja.FunctionCall) float64 {
			n := lengthOf(c.This)
			for _, a := range c.Arguments {
				if isArray(a) {
					n += lengthOf(a)
				} else {
					n++
				}
			}
			return 16 * n
		}},
		{stringProto, "split", func(c goja.FunctionCall) float64 {
			l, ok := stringLength(c.This)
			p, isStr := stringLength(argAt(c, 0))
			if !ok || !isStr {
				return 0
			}
			pieces := l
			if p > 0 {
				pieces = l/p + 1
			}
			if lim := argAt(c, 1); !goja.IsUndefined(lim) {
				pieces = math.Min(pieces, float64(uint32(lim.ToInteger())))
			}
			return 32 * pieces
		}},
		{stringProto, "replace", func(c goja.FunctionCall) float64 {
			l, ok := stringLength(c.This)
			r, isStr := stringLength(argAt(c, 1))
			if _, pat := stringLength(argAt(c, 0)); !ok || !isStr || !pat {
				return 0
			}
			return 2 * (l + r)
		}},
		{stringProto, "replaceAll", func(c goja.FunctionCall) float64 {
			l, ok := stringLength(c.This)
			p, pat := stringLength(argAt(c, 0))
			r, isStr := stringLength(argAt(c, 1))
			if !ok || !pat || !isStr {
				return 0
			}
			count := l + 1
			if p > 0 {
				count = math.Floor(l / p)
			}
			return 2 * (l + count*r)
		}},
		{json, "stringify", func(c goja.FunctionCall) float64 {
			budget := maxWalk
			return jsonBytes(argAt(c, 0), 0, &budget, float64(limit))
		}},
	} {
		if err := guard(g.obj, g.name, g.size); err != nil {
			return err
		}
	}
	return nil
}

// guardBuiltin replaces obj's built-in function name by one that throws a
// RangeError instead of calling it when size says the call would build
// more than limit bytes; the replacement keeps the name and length.
func (s *session) guardBuiltin(rangeError, obj *goja.Object, name string, limit int64, size func(c goja.FunctionCall) float64) error {
	vm := s.vm
	orig, ok := goja.AssertFunction(obj.Get(name))
	if !ok {
		return fmt.Errorf("kernels: js: no built-in %s to guard", name)
	}
	length := obj.Get(name).(*goja.Object).Get("length")
	fn := vm.ToValue(func(c goja.FunctionCall) goja.Value {
		if b := size(c); b > float64(limit) {
			e, err := vm.New(rangeError, vm.ToValue(fmt.Sprintf("kernels: this %s() of about %d MiB would pass the kernel's memory cap of %d MiB", name, int64(b)>>20, limit>>20)))
			if err != nil {
				panic(err)
			}
			panic(e)
		}
		v, err := orig(c.This, c.Arguments...)
		if err != nil {
			panic(err)
		}
		return v
	}).(*goja.Object)
	_ = fn.DefineDataProperty("name", vm.ToValue(name), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = fn.DefineDataProperty("length", length, goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	return obj.DefineDataProperty(name, fn, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// argAt is the call's i-th argument, or undefined.
func argAt(c goja.FunctionCall, i int) goja.Value {
	if i < len(c.Arguments) {
		return c.Arguments[i]
	}
	return goja.Undefined()
}
