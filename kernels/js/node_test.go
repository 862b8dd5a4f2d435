package js_test

import "strings"
import "testing"

import "github.com/tetherhq/tether/kernels"

// TestErrorsAsNode: uncaught TypeErrors read as node 20 words them (goja says
// "Cannot read property 'x' of undefined", "Value is not an object:
// undefined", ...), and stack positions are the cell's as written, without
// goja's program counters, also when top-level await wrapped the cell.
func TestErrorsAsNode(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	for _, tt := range []struct{ code, message, at string }{
		// Expected messages as node 20 prints them for the same code.
		{"let o; o.x", "Cannot read properties of undefined (reading 'x')", "cell-1:1:10"},
		{"null.foo", "Cannot read properties of null (reading 'foo')", ""},
		{"let v = null; v.x", "Cannot read properties of null (reading 'x')", ""},
		{"let m = 'abc'.match(/z/); m[1]", "Cannot read properties of null (reading '1')", ""},
		{"const c = {}; c.d.e", "Cannot read properties of undefined (reading 'e')", ""},
		{"let u; u.x = 1", "Cannot set properties of undefined (setting 'x')", ""},
		{"let u2 = null; u2.x = 1", "Cannot set properties of null (setting 'x')", ""},
		{"let w; w['p'] = 1", "Cannot set properties of undefined (setting 'p')", ""},
		{"let f; f()", "f is not a function", ""},
		{"const q = {}; q.m()", "q.m is not a function", ""},
		{"const a = []; a[0]()", "a[0] is not a function", ""},
		{"let n; new n()", "n is not a constructor", ""},
		{"let ee; for (const x of ee) {}", "ee is not iterable", ""},
		{"Object.keys(null)", "Cannot convert undefined or null to object", ""},
		// Top-level await: the column is the cell's, not the wrapper's.
		{"await 0; let q2; q2.x", "Cannot read properties of undefined (reading 'x')", ":1:21"},
		{"const r = await Promise.resolve(null); r.k", "Cannot read properties of null (reading 'k')", ":1:42"},
		{"await 0\nlet g; g()", "g is not a function", ":2:9"},
	} {
		code := strings.ReplaceAll(tt.code, `\n`, "\n")
		r := run(t, k, code)
		if r.Error == nil || r.Error.Name != "TypeError" || r.Error.Message != tt.message {
			t.Errorf("%s: got %+v, want TypeError %q", tt.code, r.Error, tt.message)
			continue
		}
		if !strings.HasPrefix(r.Error.Traceback, "TypeError: "+tt.message+"\n") || strings.Contains(r.Error.Traceback, ")(") {
			t.Errorf("%s: traceback %q", tt.code, r.Error.Traceback)
		}
		if tt.at != "" && !strings.Contains(r.Error.Traceback, tt.at+"\n") && !strings.HasSuffix(r.Error.Traceback, tt.at) {
			t.Errorf("%s: traceback %q lacks the position %s", tt.code, r.Error.Traceback, tt.at)
		}
	}
}

// prints runs code and requires it to print want and a newline, and
// nothing else (want is node 20's output for the same code).
func prints(t *testing.T, k kernels.Kernel, code, want string) {
	t.Helper()
	r := run(t, k, code)
	if r.Error != nil {
		t.Errorf("%s: %s: %s", code, r.Error.Name, r.Error.Message)
		return
	}
	if r.Stdout.Text != want+"\n" {
		t.Errorf("%s:\n got %s\nwant %s", code, r.Stdout.Text, want)
	}
}

// TestInspectBreaksLinesAsNode: console.log shows containers as node 20's
// util.inspect does with its defaults: one line when it fits in 80 columns
// and nests at most three levels, else one entry a line; more than six short
// array items grouped in columns (numbers aligned right). Each want is node
// 20's output for the same expression.
func TestInspectBreaksLinesAsNode(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	for _, tt := range []struct{ expr, want string }{
		{"[1,2,3,4,5,6]",
			"[ 1, 2, 3, 4, 5, 6 ]"},
		{"[1,2,3,4,5,6,7]",
			"[\n  1, 2, 3, 4,\n  5, 6, 7\n]"},
		{"Array.from({length:30},(_, i)=>i*7)",
			"[\n    0,   7,  14,  21,  28,  35,  42,  49,\n   56,  63,  70,  77,  84,  91,  98, 105,\n  112, 119, 126, 133, 140, 147, 154, 161,\n  168, 175, 182, 189, 196, 203\n]"},
		{"Array.from({length:120},(_, i)=>i)",
			"[\n   0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11,\n  12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,\n  24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,\n  36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,\n  48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59,\n  60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71,\n  72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83,\n  84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95,\n  96, 97, 98, 99,\n  ... 20 more items\n]"},
		{"Array.from({length:101},(_, i)=>i%3)",
			"[\n  0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n  0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n  0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n  0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n  0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n  0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n  0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n  0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n  0, 1, 2, 0,\n  ... 1 more item\n]"},
		{"['apple','banana','cherry','date','elderberry','fig','grape']",
			"[ 'apple', 'banana', 'cherry', 'date', 'elderberry', 'fig', 'grape' ]"},
		{"({users:[{name:'alice',age:30},{name:'bob',age:25}], total: 2})",
			"{\n  users: [ { name: 'alice', age: 30 }, { name: 'bob', age: 25 } ],\n  total: 2\n}"},
		{"[{a:1},{b:2},{c:3},{d:4},{e:5},{f:6},{g:7}]",
			"[\n  { a: 1 }, { b: 2 },\n  { c: 3 }, { d: 4 },\n  { e: 5 }, { f: 6 },\n  { g: 7 }\n]"},
		{"new Map([['a',{x:1,y:[1,2,3]}],['b',{x:2, y:[4,5,6]}], ['c', 'a long string value here to break']])",
			"Map(3) {\n  'a' => { x: 1, y: [ 1, 2, 3 ] },\n  'b' => { x: 2, y: [ 4, 5, 6 ] },\n  'c' => 'a long string value here to break'\n}"},
		{"({a: 1, b: [1, 2, {c: 3}], s: 'x', n: null, u: undefined, d: new Date(0)})",
			"{\n  a: 1,\n  b: [ 1, 2, { c: 3 } ],\n  s: 'x',\n  n: null,\n  u: undefined,\n  d: 1970-01-01T00:00:00.000Z\n}"},
		{"({a:{b:{c:{d:1}}},e:1})",
			"{ a: { b: { c: [Object] } }, e: 1 }"},
		{"({a:{b:{c:{}}}})",
			"{ a: { b: { c: {} } } }"},
		{"({level1: {level2: {level3: 'deep'}}, other: [1, [2, [3, [4]]]]})",
			"{\n  level1: { level2: { level3: 'deep' } },\n  other: [ 1, [ 2, [Array] ] ]\n}"},
		{"new Set(['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota'])",
			"Set(9) {\n  'alpha',\n  'beta',\n  'gamma',\n  'delta',\n  'epsilon',\n  'zeta',\n  'eta',\n  'theta',\n  'iota'\n}"},
		{"new Uint8Array(10)",
			"Uint8Array(10) [\n  0, 0, 0, 0, 0,\n  0, 0, 0, 0, 0\n]"},
		{"[['a', 1], ['b', 2], ['c', 3], ['d', 4], ['e', 5], ['f', 6], ['g', 7], ['h', 8]]",
			"[\n  [ 'a', 1 ],\n  [ 'b', 2 ],\n  [ 'c', 3 ],\n  [ 'd', 4 ],\n  [ 'e', 5 ],\n  [ 'f', 6 ],\n  [ 'g', 7 ],\n  [ 'h', 8 ]\n]"},
		{"[1.5, -2, 300, 4e21, 5, 6, 7]",
			"[\n    1.5, -2, 300,\n  4e+21,  5,   6,\n      7\n]"},
		{"[true, false, null, undefined, 1, 'x', 2]",
			"[ true, false, null, undefined, 1, 'x', 2 ]"},
	} {
		prints(t, k, "console.log("+tt.expr+")", tt.want)
	}
}

// TestConsoleAsNode: console.log formats as node 20's util.format: format
// strings (%s, %d, %i, %f, %j, %O, %c, %%), quotes chosen as node chooses
// them, -0, symbols (values and keys), holes in arrays, null-prototype
// objects, weak collections and subclassed Maps. Each want is node 20's
// output for the same statement.
func TestConsoleAsNode(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	for _, tt := range []struct{ code, want string }{
		{"console.log('%s is %d years and %i, %f, %j %O %%', 'Bob', 42.5, 42.5, 1.5, {a:1}, {b:2})",
			"Bob is 42.5 years and 42, 1.5, {\"a\":1} { b: 2 } %"},
		{"console.log('%s and %s', {toString() { return 'custom' }}, {a: {b: 1}})",
			"custom and { a: [Object] }"},
		{"console.log('%d%%', 50, 'extra', {x: 1})",
			"50% extra { x: 1 }"},
		{"console.log('%s', -0, '%d')",
			"-0 %d"},
		{"console.log('100%')",
			"100%"},
		{"console.log('%c styled', 'color: red')",
			" styled"},
		{"const cyc = {}; cyc.me = cyc; console.log('%j', cyc)",
			"[Circular]"},
		{"console.log(['it\\'s', \"q\\\"d\", `b${1}`, 'both \\' and \"', 'tab\\there', '\\x1b[0m'])",
			"[ \"it's\", 'q\"d', 'b1', `both ' and \"`, 'tab\\there', '\\x1B[0m' ]"},
		{"console.log(-0, [-0], 1e21, 0.1+0.2, 2n**64n, NaN, [undefined, null])",
			"-0 [ -0 ] 1e+21 0.30000000000000004 18446744073709551616n NaN [ undefined, null ]"},
		{"console.log(Symbol('s'), [Symbol.iterator])",
			"Symbol(s) [ Symbol(Symbol.iterator) ]"},
		{"console.log({ 'a-b': 1, 2: 3, [Symbol('k')]: 4 })",
			"{ '2': 3, 'a-b': 1, [Symbol(k)]: 4 }"},
		{"console.log([ , 1, , ], [1, , , , 5])",
			"[ <1 empty item>, 1, <1 empty item> ] [ 1, <3 empty items>, 5 ]"},
		{"console.log(Object.create(null))",
			"[Object: null prototype] {}"},
		{"console.log(new Map(), new Set([1]), new WeakMap(), new WeakSet())",
			"Map(0) {} Set(1) { 1 } WeakMap { <items unknown> } WeakSet { <items unknown> }"},
		{"console.log(new (class M extends Map {})([[1, 2]]))",
			"M(1) [Map] { 1 => 2 }"},
	} {
		prints(t, k, tt.code, tt.want)
	}
	r := run(t, k, "console.log('%j', 1n)")
	if r.Error == nil || r.Error.Name != "TypeError" || r.Error.Message != "Do not know how to serialize a BigInt" {
		t.Errorf("%%j of a BigInt: %+v", r.Error)
	}
}

// TestWebGlobals: atob, btoa, TextEncoder, TextDecoder and structuredClone,
// which node has and goja lacks, behave as node 20's (the want is node's
// output for the same cell).
func TestWebGlobals(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	prints(t, k, "console.log(btoa('hi there'), atob('aGkgdGhlcmU='), atob(' aGk= '), btoa(''), atob(''))\ntry { btoa('€') } catch (e) { console.log(e.name, e.message) }\ntry { atob('a') } catch (e) { console.log(e.name, e.message) }\nconsole.log(new TextEncoder().encode('héllo €😀'), new TextEncoder().encoding)\nconsole.log(new TextDecoder().decode(new TextEncoder().encode('héllo €😀')), new TextDecoder().decode(new Uint8Array([0xff, 0x41])))\nconst o = {a: [1, {b: new Date(0)}], m: new Map([[1, new Set([2])]])}; o.self = o\nconst c = structuredClone(o); console.log(c.a[1].b instanceof Date, c !== o, c.self === c, c.m.get(1).has(2), c.a !== o.a)\ntry { structuredClone({f() {}}) } catch (e) { console.log(e.name, e.message) }\n",
		"aGkgdGhlcmU= hi there hi  \nInvalidCharacterError Invalid character\nInvalidCharacterError The string to be decoded is not correctly encoded.\nUint8Array(14) [\n  104, 195, 169, 108,\n  108, 111,  32, 226,\n  130, 172, 240, 159,\n  152, 128\n] utf-8\nhéllo €😀 �A\ntrue true true true true\nDataCloneError f() {} could not be cloned.")
}

// TestForAwaitSaysWhatToDo: goja cannot parse for await...of; the error says
// so and what to write instead.
func TestForAwaitSaysWhatToDo(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	r := run(t, k, "const out = []\nfor await (const x of [Promise.resolve(1)]) out.push(x)")
	if r.Error == nil || r.Error.Name != "SyntaxError" || !strings.Contains(r.Error.Message, "no for await...of") || !strings.Contains(r.Error.Message, "await each value inside the loop") {
		t.Errorf("for await: %+v", r.Error)
	}
	wantValue(t, k, "const out = []\nfor (const p of [Promise.resolve(1), 2]) out.push(await p)\nout", "[ 1, 2 ]")
}

// TestToLocaleString: numbers and BigInts format in node's default locale
// (en-US) as node 20 does; goja has no Intl and printed 1234.5 for 1,234.5.
func TestToLocaleString(t *testing.T) {
	k := newKernel(t, kernels.Config{})
	prints(t, k, "for (const v of [1234.5, 1234.5678, 0.1+0.2, -1234567, 1e21, NaN, Infinity, -0, 0.0005, 123456789.987654, 5, -0.0001]) console.log(JSON.stringify([v, v.toLocaleString(), v.toLocaleString('en-US', {maximumFractionDigits: 1}), v.toLocaleString(undefined, {minimumFractionDigits: 2})]))\nconsole.log(1234n.toLocaleString(), (-1234567n).toLocaleString(), (1234.5).toLocaleString('en-US', {useGrouping: false}))\n",
		"[1234.5,\"1,234.5\",\"1,234.5\",\"1,234.50\"]\n[1234.5678,\"1,234.568\",\"1,234.6\",\"1,234.568\"]\n[0.30000000000000004,\"0.3\",\"0.3\",\"0.30\"]\n[-1234567,\"-1,234,567\",\"-1,234,567\",\"-1,234,567.00\"]\n[1e+21,\"1,000,000,000,000,000,000,000\",\"1,000,000,000,000,000,000,000\",\"1,000,000,000,000,000,000,000.00\"]\n[null,\"NaN\",\"NaN\",\"NaN\"]\n[null,\"∞\",\"∞\",\"∞\"]\n[0,\"-0\",\"-0\",\"-0.00\"]\n[0.0005,\"0.001\",\"0\",\"0.001\"]\n[123456789.987654,\"123,456,789.988\",\"123,456,790\",\"123,456,789.988\"]\n[5,\"5\",\"5\",\"5.00\"]\n[-0.0001,\"-0\",\"-0\",\"-0.00\"]\n1,234 -1,234,567 1234.5")
}
