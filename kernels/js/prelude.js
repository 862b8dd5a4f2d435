// The kernel's prelude, run in each new runtime before any cell (as the
// script "tether-prelude"): web globals node has and goja does not, node's
// toLocaleString, ToolError, the helpers inspect calls, and the memory guards
// (__tether_guard, called with the cap, then deleted).

// Web platform globals node has and goja does not: atob, btoa, TextEncoder,
// TextDecoder, structuredClone.
(() => {
  const def = (name, value) => Object.defineProperty(globalThis, name, {value, writable: true, configurable: true, enumerable: false});
  const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const domError = (name, message) => { const e = new Error(message); e.name = name; return e; };
  def("btoa", function btoa(data) {
    if (arguments.length === 0) throw new TypeError('The "data" argument must be specified');
    const s = String(data);
    let out = "";
    for (let i = 0; i < s.length; i += 3) {
      const c = [s.charCodeAt(i), s.charCodeAt(i + 1), s.charCodeAt(i + 2)];
      for (const x of c) if (x > 255) throw domError("InvalidCharacterError", "Invalid character");
      const n = (c[0] << 16) | ((c[1] || 0) << 8) | (c[2] || 0);
      out += B64[n >> 18] + B64[(n >> 12) & 63] + (i + 1 < s.length ? B64[(n >> 6) & 63] : "=") + (i + 2 < s.length ? B64[n & 63] : "=");
    }
    return out;
  });
  def("atob", function atob(data) {
    if (arguments.length === 0) throw new TypeError('The "data" argument must be specified');
    let s = String(data).replace(/[\t\n\f\r ]/g, "");
    if (s.length % 4 === 0) s = s.replace(/==?$/, "");
    if (s.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(s)) throw domError("InvalidCharacterError", "The string to be decoded is not correctly encoded.");
    let out = "", bits = 0, acc = 0;
    for (const ch of s) {
      acc = (acc << 6) | B64.indexOf(ch);
      bits += 6;
      if (bits >= 8) { bits -= 8; out += String.fromCharCode((acc >> bits) & 255); }
    }
    return out;
  });
  class TextEncoder {
    get encoding() { return "utf-8"; }
    encode(input = "") {
      const s = String(input), out = [];
      for (let i = 0; i < s.length; i++) {
        let c = s.charCodeAt(i);
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
          const d = s.charCodeAt(i + 1);
          if (d >= 0xdc00 && d <= 0xdfff) { c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00); i++; }
          else c = 0xfffd;
        } else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
        if (c < 0x80) out.push(c);
        else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
        else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
        else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      }
      return new Uint8Array(out);
    }
  }
  class TextDecoder {
    constructor(label = "utf-8") {
      if (!/^utf-?8$/i.test(String(label))) throw new RangeError('The "' + label + '" encoding is not supported');
    }
    get encoding() { return "utf-8"; }
    decode(input) {
      if (input === undefined) return "";
      const b = input instanceof ArrayBuffer ? new Uint8Array(input) : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
      let out = "";
      for (let i = 0; i < b.length;) {
        const c = b[i];
        let n = c < 0x80 ? 0 : c >= 0xc2 && c < 0xe0 ? 1 : c >= 0xe0 && c < 0xf0 ? 2 : c >= 0xf0 && c < 0xf5 ? 3 : -1;
        let cp = n === 0 ? c : n === 1 ? c & 31 : n === 2 ? c & 15 : c & 7, ok = n >= 0;
        for (let k = 1; ok && k <= n; k++) {
          const d = b[i + k];
          if (d === undefined || (d & 0xc0) !== 0x80) ok = false; else cp = (cp << 6) | (d & 63);
        }
        if (ok && ((n === 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n === 3 && (cp < 0x10000 || cp > 0x10ffff)))) ok = false;
        if (!ok) { out += "\ufffd"; i++; continue; }
        out += String.fromCodePoint(cp);
        i += n + 1;
      }
      return out;
    }
  }
  // Number and BigInt toLocaleString in node's default locale (en-US):
  // grouping commas, at most 3 fraction digits; other locales as goja has it.
  const group = (digits) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const enUS = (l) => l === undefined || (typeof l === "string" && /^en(-US)?$/i.test(l)) || (Array.isArray(l) && l.length === 0);
  const numLocale = Number.prototype.toLocaleString;
  Object.defineProperty(Number.prototype, "toLocaleString", {value: function toLocaleString(locales, options) {
    const x = Number(this);
    if (!enUS(locales)) return numLocale.call(this, locales, options);
    const o = options || {};
    if (Number.isNaN(x)) return "NaN";
    if (!Number.isFinite(x)) return x < 0 ? "-∞" : "∞";
    const min = o.minimumFractionDigits === undefined ? 0 : Math.min(Math.max(Number(o.minimumFractionDigits), 0), 100);
    const max = o.maximumFractionDigits === undefined ? Math.max(min, 3) : Math.min(Math.max(Number(o.maximumFractionDigits), min), 100);
    const neg = x < 0 || Object.is(x, -0);
    const a = Math.abs(x);
    let [int, frac = ""] = a >= 1e21 ? [BigInt(a).toString(), ""] : a.toFixed(max).split(".");
    while (frac.length > min && frac.endsWith("0")) frac = frac.slice(0, -1);
    frac = frac.padEnd(min, "0");
    return (neg ? "-" : "") + (o.useGrouping === false ? int : group(int)) + (frac ? "." + frac : "");
  }, writable: true, configurable: true, enumerable: false});
  const bigLocale = BigInt.prototype.toLocaleString;
  Object.defineProperty(BigInt.prototype, "toLocaleString", {value: function toLocaleString(locales, options) {
    if (!enUS(locales)) return bigLocale.call(this, locales, options);
    const s = BigInt(this).toString();
    return s.startsWith("-") ? "-" + group(s.slice(1)) : group(s);
  }, writable: true, configurable: true, enumerable: false});
  def("TextEncoder", TextEncoder);
  def("TextDecoder", TextDecoder);
  def("structuredClone", function structuredClone(value) {
    const seen = new Map();
    const clone = (v) => {
      if (typeof v === "function" || typeof v === "symbol") throw domError("DataCloneError", String(v) + " could not be cloned.");
      if (v === null || typeof v !== "object") return v;
      if (seen.has(v)) return seen.get(v);
      let out;
      if (Array.isArray(v)) { out = []; seen.set(v, out); v.forEach((x, i) => { out[i] = clone(x); }); return out; }
      if (v instanceof Date) out = new Date(v.getTime());
      else if (v instanceof RegExp) out = new RegExp(v.source, v.flags);
      else if (v instanceof Map) { out = new Map(); seen.set(v, out); for (const [k, x] of v) out.set(clone(k), clone(x)); return out; }
      else if (v instanceof Set) { out = new Set(); seen.set(v, out); for (const x of v) out.add(clone(x)); return out; }
      else if (v instanceof ArrayBuffer) out = v.slice(0);
      else if (ArrayBuffer.isView(v)) out = new v.constructor(v);
      else if (v instanceof Error) { out = new v.constructor(v.message); out.stack = v.stack; }
      else if (v instanceof WeakMap || v instanceof WeakSet || v instanceof Promise) throw domError("DataCloneError", Object.prototype.toString.call(v) + " could not be cloned.");
      else { out = {}; seen.set(v, out); for (const k of Object.keys(v)) out[k] = clone(v[k]); return out; }
      seen.set(v, out);
      return out;
    };
    return clone(value);
  });
})();
class ToolError extends Error {
  constructor(message) { super(message); this.name = "ToolError"; }
}
// What tool() returns: the tool's text as a String, with .structured (the
// tool's structured output, or null) and .text (the text as a primitive).
class ToolResult extends String {
  constructor(text, structured) {
    super(text);
    Object.defineProperty(this, "text", {value: String(text)});
    Object.defineProperty(this, "structured", {value: structured === undefined ? null : structured});
  }
}
Object.defineProperty(globalThis, "__tether_entries", {value: (x) => Array.from(x), enumerable: false, configurable: true});
Object.defineProperty(globalThis, "__tether_conv", {value: ((N, PI, PF, J, S, own, proto, desc) => {
  const builtins = new Set(["Object", "Error", "Array", "Map", "Set", "WeakMap", "WeakSet", "Date", "RegExp", "Promise", "Function",
    "Number", "String", "Boolean", "Symbol", "BigInt", "ArrayBuffer", "DataView", "Uint8Array", "Int8Array", "Uint16Array", "Int16Array",
    "Uint32Array", "Int32Array", "Float32Array", "Float64Array", "Uint8ClampedArray", "BigInt64Array", "BigUint64Array",
    "TypeError", "RangeError", "SyntaxError", "ReferenceError", "EvalError", "URIError", "AggregateError"]);
  function builtinToString(v) {
    if (typeof v.toString !== "function") return true;
    if (Object.prototype.hasOwnProperty.call(v, "toString")) return false;
    let p = v;
    do { p = proto(p) } while (p !== null && !Object.prototype.hasOwnProperty.call(p, "toString"));
    if (p === null) return true;
    const d = desc(p, "constructor");
    return d !== undefined && typeof d.value === "function" && builtins.has(d.value.name);
  }
  // util.format's conversions: a number (formatted by the kernel), a
  // string, or null for "inspect it".
  return (k, v) => {
    switch (k) {
    case "d": return typeof v === "bigint" ? v : typeof v === "symbol" ? NaN : N(v);
    case "i": return typeof v === "bigint" ? v : typeof v === "symbol" ? NaN : PI(v);
    case "f": return typeof v === "symbol" ? NaN : PF(v);
    case "j": try { const s = J(v); return s === undefined ? "undefined" : s } catch (e) { if (e instanceof TypeError && /circular/i.test(e.message)) return "[Circular]"; throw e }
    case "s": return typeof v === "object" && v !== null && !builtinToString(v) ? S(v) : null;
    }
    return null;
  };
})(Number, parseInt, parseFloat, JSON.stringify, String, Object.getOwnPropertyDescriptor, Object.getPrototypeOf, Object.getOwnPropertyDescriptor), enumerable: false, configurable: true});
Object.defineProperty(globalThis, "__tether_accessor", {value: ((desc) => (o, k) => {
  const d = desc(o, k);
  if (!d || !("get" in d || "set" in d)) return "";
  return d.get && d.set ? "[Getter/Setter]" : d.get ? "[Getter]" : "[Setter]";
})(Object.getOwnPropertyDescriptor), enumerable: false, configurable: true});
Object.defineProperty(globalThis, "__tether_kind", {value: ((probes) => (x) => {
  for (const [kind, has] of probes) { try { has.call(x, {}); return kind } catch (e) {} }
  return "";
})([["Map", Map.prototype.has], ["Set", Set.prototype.has], ["WeakMap", WeakMap.prototype.has], ["WeakSet", WeakSet.prototype.has]]), enumerable: false, configurable: true});
globalThis.__tether_guard = function(limit, count) {
  function check(bytes, what) {
    if (bytes > limit) {
      throw new RangeError("kernels: " + what + " of about " + Math.round(bytes / 1048576) +
        " MiB would pass the kernel's memory cap of " + Math.round(limit / 1048576) + " MiB");
    }
  }
  function wrap(proto, name, size) {
    const orig = proto[name];
    Object.defineProperty(proto, name, {
      value: {[name](...args) { check(size(this, args), "this " + name + "()"); return orig.apply(this, args); }}[name],
      writable: true, configurable: true, enumerable: false,
    });
  }
  wrap(String.prototype, "repeat", (s, a) => String(s).length * 2 * Number(a[0]));
  wrap(String.prototype, "padStart", (s, a) => 2 * Number(a[0]));
  wrap(String.prototype, "padEnd", (s, a) => 2 * Number(a[0]));
  wrap(Array.prototype, "fill", (s, a) => 16 * Number(s.length));
  // A plain function stands in for each constructor (goja's instanceof does
  // not see through a Proxy): same prototype, same statics, and species
  // lookups land on it too.
  function guardCtor(name, elem) {
    const C = globalThis[name];
    if (typeof C !== "function") return;
    const G = {[name]: function(...args) {
      if (!new.target) throw new TypeError("Constructor " + name + " requires 'new'");
      if (typeof args[0] === "number") check(args[0] * elem, "new " + name + "()");
      return Reflect.construct(C, args, new.target === G ? C : new.target);
    }}[name];
    for (const key of Object.getOwnPropertyNames(C)) {
      if (key === "prototype" || key === "length" || key === "name") continue;
      Object.defineProperty(G, key, Object.getOwnPropertyDescriptor(C, key));
    }
    Object.setPrototypeOf(G, Object.getPrototypeOf(C));
    Object.defineProperty(G, "prototype", {value: C.prototype, writable: false});
    Object.defineProperty(C.prototype, "constructor", {value: G, writable: true, configurable: true, enumerable: false});
    Object.defineProperty(globalThis, name, {value: G, writable: true, configurable: true, enumerable: false});
  }
  guardCtor("ArrayBuffer", 1);
  for (const [n, e] of [["Int8Array", 1], ["Uint8Array", 1], ["Uint8ClampedArray", 1], ["Int16Array", 2],
      ["Uint16Array", 2], ["Int32Array", 4], ["Uint32Array", 4], ["Float32Array", 4], ["Float64Array", 8],
      ["BigInt64Array", 8], ["BigUint64Array", 8]]) guardCtor(n, e);
  // A regular expression that finds every match (the global flag, and
  // split always) builds one result per match in one native call, which
  // the heap guard cannot stop part way: the matches are counted first
  // (in Go, no result built; the count stops once past the cap)
  // and the result refused when its size would pass the cap. Bytes a match
  // costs while the call runs, measured in goja: about 180 for match, split
  // and replace (the match's indexes and its value), 16 more per capture
  // group, about 500 for a matchAll result array; a two-byte string's
  // pieces are copies.
  const RE = RegExp, ascii = /^[\x00-\x7f]*$/;
  const isRegExp = (x) => Object.prototype.toString.call(x) === "[object RegExp]";
  function groupsOf(rx) {
    try { return new RE(rx.source + "|", "").exec("").length - 1 } catch (e) { return 0 }
  }
  function countUpTo(rx, s, stop) {
    const n = count(rx.source, rx.flags, s, stop);
    return n < 0 ? s.length + 1 : n;
  }
  function guardMatches(sym, name, every, perMatch, extra) {
    const orig = RE.prototype[sym];
    Object.defineProperty(RE.prototype, sym, {
      value: {[name](str, ...rest) {
        // Short strings (most calls) pass on the bound of a match per
        // character (each parenthesis a group), before anything is scanned
        // or compiled.
        const l = typeof str === "string" ? str.length : Infinity;
        if (isRegExp(this) && (every || this.global) &&
            (l + 1) * (perMatch + 2 + 16 * (String(this.source).split("(").length - 1)) + extra(str, l, rest, 2) > limit) {
          const s = String(str), l = s.length, twoByte = !ascii.test(s) ? 2 : 0;
          const per = perMatch + 16 * groupsOf(this);
          const fixed = twoByte * l + extra(s, l, rest, twoByte);
          if ((l + 1) * per + fixed > limit) {
            const stop = Math.floor(Math.max(0, limit - fixed) / per) + 1;
            const n = countUpTo(this, s, stop);
            if (n * per + fixed > limit) {
              check(n * per + fixed, "this " + name + "() of " + n + (n > stop ? " or more" : "") + " matches");
            }
          }
        }
        return orig.call(this, str, ...rest);
      }}[name],
      writable: true, configurable: true, enumerable: false,
    });
  }
  guardMatches(Symbol.match, "match", false, 192, () => 0);
  guardMatches(Symbol.matchAll, "matchAll", false, 512, () => 0);
  guardMatches(Symbol.split, "split", true, 192, () => 0);
  // replace's result is the string with each match replaced: counted at
  // the length of a replacement string per match (a function's results
  // are built by the cell itself, where the heap guard sees them).
  guardMatches(Symbol.replace, "replace", false, 192, (s, l, rest, twoByte) =>
    typeof rest[0] === "string" ? Math.max(twoByte, 1) * (l + rest[0].length) : 0);
  // (Each extra above is at most 2 * (l + the replacement) for a string of
  // l units, so the bound before the scan holds for all of them.)
  const from = Array.from;
  Array.from = function from_(src, ...rest) {
    if (src != null && typeof src.length === "number") check(16 * src.length, "Array.from()");
    return from.call(this, src, ...rest);
  };
};
