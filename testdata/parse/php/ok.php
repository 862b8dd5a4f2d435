<?php

namespace Greet;

/** Says hello. */
class Greeter
{
    private int $count = 0;

    public function __construct(private string $name)
    {
    }

    public function greet(string ...$names): string
    {
        $this->count++;
        if (count($names) === 0) {
            return "hello, {$this->name}";
        }
        return implode("\n", array_map(fn($n) => "hello, $n", $names));
    }
}

echo (new Greeter("world"))->greet("a", "b");
