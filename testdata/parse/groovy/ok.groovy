// Says hello.
class Greeter {
    String name = 'world';
    int count = 0;

    String greet(List<String> names = []) {
        count++
        if (names.isEmpty()) {
            return "hello, ${name}"
        }
        return names.collect { n -> "hello, $n" }.join('\n')
    }
}

def g = new Greeter(name: 'world')
println(g.greet(['a', 'b']))
