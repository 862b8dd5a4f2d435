package greet;

import java.util.List;
import java.util.stream.Collectors;

/** Says hello. */
public class Greeter {
    private final String name;
    private int count;

    public Greeter(String name) {
        this.name = name;
    }

    public String greet(List<String> names) {
        count++;
        if (names.isEmpty()) {
            return "hello, " + name;
        }
        return names.stream().map(n -> "hello, " + n).collect(Collectors.joining("\n"));
    }

    @Override
    public String toString() {
        return String.format("Greeter[%s, %d]", name, count);
    }
}
