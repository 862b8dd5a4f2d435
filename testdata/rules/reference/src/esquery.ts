// ESQuery-style kinds: the examples of ast-grep's esquery reference
test(123);
foo.bar(1, x);
const list = [1, 2, 3, 4, 5];
const mixed = [a, 1, 2, 3];

function foo() { return 1 }
function* gen() { return 2 }
function noReturn() { let y = 1 }

class Service {
  @Get()
  @Auth()
  handle() {}

  plain() {}

  @Post()
  create() {}
}

const a = ((1));
const b = ((x));
const c = 2;
let s = "éé"; s.len();
let t = 'abc'; t.len();
