import 'dart:async';

/// Says hello.
class Greeter {
  final String name;
  int _count = 0;

  Greeter(this.name);

  String greet([List<String> names = const []]) {
    _count++;
    if (names.isEmpty) {
      return 'hello, $name';
    }
    return names.map((n) => 'hello, $n').join('\n');
  }

  Future<void> dispose() async {
    await Future.delayed(Duration.zero);
  }
}

void main() {
  final g = Greeter('world');
  print(g.greet(['a', 'b']));
}
