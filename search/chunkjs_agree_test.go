package search_test

import "os"
import "path/filepath"
import "testing"

// stmtTS is TypeScript whose statement cuts are easy to get wrong: test
// suites of nested calls and arrow functions without semicolons, headers
// whose statement is on the next line, else and catch clauses, chained
// calls and operators that go on on the next line, generators, super,
// labels, bodies on one line, a function and an arrow type returning an
// object type, a class extending a call and one with a generic constraint
// holding an object type, decorators over lines, templates and regular
// expressions holding braces, a switch, a static block, overloads, an
// object's methods, top-level await, and tokens in comments, literals,
// longer words and templates' holes.
const stmtTS = `import { expect } from "chai"

describe("github issues > #1234", () => {
    let connections: DataSource[]
    before(
        async () =>
            (connections = await createTestingConnections({
                entities: [__dirname + "/entity/*{.js,.ts}"],
            })),
    )
    after(() => closeTestingConnections(connections))

    it("should work", () =>
        Promise.all(
            connections.map(async (connection) => {
                const repo = connection.getRepository(Post)
                await repo.save(post)
                const loaded = await repo
                    .createQueryBuilder("post")
                    .getOne()
                expect(loaded).to.be.eql({ id: 1, title: "a {" })
                if (loaded === undefined)
                    await repo.clear()
                else
                    throw new Error(` + "`missing ${await repo.count()} {`" + `)
                const total = 1 +
                    await repo.count()
                const re = /[{}]+\//g
                const s = ` + "`${[1].map((x) => {\n                    return x === undefined\n                })}`" + `
            }),
        ))
})

export function f(): {
    a: number
} {
    return { a: 1 }
}

type Make = (x: number) => {
    a: number
    b: typeof f
}

export class Repo<T extends {
    id: number
}> extends mixin(Base) {
    @Column({
        type: "varchar",
    })
    name: string
    private pending = new Promise<void>((resolve) => resolve())
    static {
        Repo.count = 0
    }

    constructor(private readonly source: Source) {
        super(source)
    }

    load(id: number): Promise<T>
    load(id: string): Promise<T>
    async load(id: any): Promise<T> {
        outer: for (const x of this.items) {
            for (const y of x) {
                if (y === undefined) continue outer
                if (y === null) { break outer }
            }
        }
        try {
            return await this.source.find(id)
        } catch (e) {
            console.log(e)
            throw e
        } finally {
            await this.source.release()
        }
    }

    *ids(): Generator<number> {
        yield 1
        yield* this.more()
    }

    state(x: number): string {
        switch (x) {
            case 1: {
                return JSON.parse("{}")
            }
            default:
                return new String(x) as string
        }
    }
}

const api = {
    async get(url: string) {
        const res = await fetch(url)
        return res.json()
    },
    parse(text: string) { return JSON.parse(text) },
}

do {
    await api.get("x")
} while (api === undefined)

for await (const chunk of stream)
    console.log(chunk)

await Promise.resolve(new Promise((r) => r(1)))

export function wrap(newPromise: () => void) {
    // await the promise, then new Promise it
    const awaited = newPromise /* undefined */
    return awaitAll(/await/, "new Promise", ` + "`await ${await newPromise()} ${`${x === undefined}`}`" + `, () => {
        return new Promise(awaited)
    })
}
`

// stmtJS is JavaScript with the same traps, and private fields, a class
// expression and CommonJS exports.
const stmtJS = `"use strict"
const fs = require("fs")

class Store extends Base {
  #count = 0
  items = []

  constructor(dir) {
    super(dir)
    this.dir = dir
  }

  async load(path) {
    const text = await fs.promises.readFile(path, "utf8")
    if (text === undefined)
      return null
    return JSON.parse(text)
      .items
      .map((i) => new Item(i))
  }

  *[Symbol.iterator]() {
    for (const i of this.items) yield i
  }
}

const Other = class {
  run() {
    console.log(new Promise(() => {}))
    return this.#x === undefined
  }
}

function main(argv) {
  loop: while (true) {
    const line = argv.shift()
    if (line === undefined) break loop
    new Store(line)
      .load(line)
      .then((x) => console.log(x))
  }
  return argv.length === 0 ? null : argv
}

module.exports = { Store, Other, main }
`

// stmtPatterns are patterns whose matches lie in one statement (cut around
// statements) and some that must not be cut: with braces, or no token.
var stmtPatterns = []string{
	"await $X", "new Promise($$$)", "$A === undefined", "console.log($$$)", "JSON.parse($A)", "return $X",
	"throw new $E($$$)", "const $X = await $Y", "$A !== $B", "yield $X", "super($$$)", "$X.then($$$)",
	"expect($A).to.be.eql($B)", "break $L", "continue $L", "typeof $X", "this.$F($$$)", "new $C($$$)",
	"$A && $B", "$A + $B", "($X) => $Y", "$X.map($$$)", "for (const $X of $Y) { $$$ }", "if ($C) { $$$ }",
	"async $M($$$) { $$$ }", "$F($$$)", "$A ? $B : $C", "return", "$X = $Y",
}

// TestChunkedTSStatementsAgreeWithWhole: a TypeScript search whose pattern
// lies in one statement parses only the statements that hold its tokens
// outside their bodies, and finds exactly what a search parsing every file
// whole finds, on the golden inputs and the file above; TETHER_TS_CORPUS
// names more directories (go test ./search -run ChunkedTSStatements -v
// with it set to a project).
func TestChunkedTSStatementsAgreeWithWhole(t *testing.T) {
	chunkedAgree(t, "typescript", ".ts", map[string]string{"stmt.ts": stmtTS, "chunked.ts": chunkedTS},
		filepath.SplitList(os.Getenv("TETHER_TS_CORPUS")), append(stmtPatterns, "$X as $T", "let $X: $T"))
}

// TestChunkedJSStatementsAgreeWithWhole: the same for JavaScript (more
// with TETHER_JS_CORPUS).
func TestChunkedJSStatementsAgreeWithWhole(t *testing.T) {
	chunkedAgree(t, "javascript", ".js", map[string]string{"stmt.js": stmtJS, "chunked.js": chunkedJS, "app.js": chunkedJSX},
		filepath.SplitList(os.Getenv("TETHER_JS_CORPUS")), stmtPatterns)
}
