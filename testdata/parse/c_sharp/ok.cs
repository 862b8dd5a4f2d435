using System;
using System.Collections.Generic;
using System.Linq;

namespace Greet
{
    /// <summary>Says hello.</summary>
    public class Greeter
    {
        private int count;
        public string Name { get; }

        public Greeter(string name) => Name = name;

        public string Greet(params string[] names)
        {
            count++;
            if (names.Length == 0)
            {
                return $"hello, {Name}";
            }
            return string.Join("\n", names.Select(n => $"hello, {n}"));
        }
    }

    public static class Program
    {
        public static void Main() => Console.WriteLine(new Greeter("world").Greet("a", "b"));
    }
}
