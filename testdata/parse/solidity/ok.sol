// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Says hello.
contract Greeter {
    string public name;
    uint256 private count;

    event Greeted(address indexed who, string message);

    constructor(string memory _name) {
        name = _name;
    }

    function greet(string calldata who) external returns (string memory) {
        require(bytes(who).length > 0, "empty");
        count += 1;
        emit Greeted(msg.sender, who);
        return string.concat("hello, ", who);
    }
}
