pragma solidity ^0.8.20;

contract Greeter {
    function greet(string calldata who external returns (string memory) {
        return who;
    }
