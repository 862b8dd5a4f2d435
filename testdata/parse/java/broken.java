public class Greeter {
    public String greet(String name {
        return "hello, " + ;
    }
