package com.example;

import java.util.List;
import java.util.ArrayList;
import java.io.*;

public class App {
    private static final int MAX = 10;
    private String name;
    protected List<String> items = new ArrayList<>();

    public App(String name) {
        this.name = name;
    }

    @Override
    public String toString() {
        return "App(" + name + ")";
    }

    public void run() throws IOException {
        System.out.println("running " + name);
        for (int i = 0; i < MAX; i++) {
            System.out.println(i);
        }
        try {
            read();
        } catch (IOException e) {
            e.printStackTrace();
        } catch (RuntimeException e) {
        }
        if (name == null) {
            throw new IllegalStateException("no name");
        }
        String s = name.equals("x") ? "a" : "b";
        synchronized (this) {
            items.add(s);
        }
    }

    private void read() throws IOException {}

    @Deprecated
    public static void main(String[] args) {
        new App("x").run();
    }
}
