<?php
class Greeter
{
    public function greet($name
    {
        return "hello, " . ;
    }
