require 'json'
require_relative 'lib/helper'

module Shop
  class Cart
    attr_reader :items

    def initialize
      @items = []
    end

    def add(item)
      @items << item
      self
    end

    def total
      @items.map { |i| i.price }.sum
    end

    def names
      @items.select { |i| i.available? }.map { |i| i.name }
    end

    def to_json(*args)
      { items: @items }.to_json(*args)
    end

    def empty?
      return true if @items.length == 0
      false
    end
  end
end

cart = Shop::Cart.new
cart.add(1).add(2)
puts cart.total
puts "done" unless cart.empty?
