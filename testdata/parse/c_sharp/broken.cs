public class Greeter
{
    public string Greet(string name
    {
        return "hello, " + ;
    }
