package io.headscope.app.cli;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A client of {@code headscope serve} in a process of its own, as a notebook kernel is: starts the server
 * (its parent is this process; its standard error goes to a file), sends one request line, prints the server's
 * PID, and waits to be killed. Arguments: the stderr file, the request line, then the server's command.
 */
public final class ServeClientMain {
  private ServeClientMain() {}

  public static void main(String[] args) throws Exception {
    List<String> command = new ArrayList<>(List.of(args).subList(2, args.length));
    Process server = new ProcessBuilder(command).redirectError(new java.io.File(args[0])).start();
    OutputStream in = server.getOutputStream();
    in.write((args[1] + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
    System.out.println(server.pid());
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE); // killed by the test, never reading an answer
  }
}
