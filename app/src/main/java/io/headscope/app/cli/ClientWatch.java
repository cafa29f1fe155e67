package io.headscope.app.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;

/**
 * Whether the client of {@code headscope serve} is gone: the process that started the server has ended
 * (the server was handed to another parent), and the server's standard output is a pipe or a socket, which
 * only that client read. A notebook kernel killed by a restart (SIGKILL) ends so; the server, in a session
 * of its own, would otherwise compute on for hours. Asked only once standard input has ended (a killed
 * client's end of the pipe closes with it), so {@code printf ... | headscope serve --stdio > answers.jsonl},
 * whose answers go to a file, still runs every request to its end.
 */
final class ClientWatch implements BooleanSupplier {
  private final long parent;

  private ClientWatch(long parent) {
    this.parent = parent;
  }

  /** The watch of this process's parent as it is now. */
  static ClientWatch start() {
    return new ClientWatch(ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L));
  }

  @Override
  public boolean getAsBoolean() {
    if (parent <= 1) {
      return false; // started by init or a subreaper: no client process to watch
    }
    long now = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
    boolean parentGone = now != parent || ProcessHandle.of(parent).map(p -> !p.isAlive()).orElse(true);
    return parentGone && outputIsAPipe();
  }

  /** Whether file descriptor 1 is a pipe or a socket (true where /proc cannot say: the conservative answer). */
  private static boolean outputIsAPipe() {
    try {
      String target = Files.readSymbolicLink(Path.of("/proc/self/fd/1")).toString();
      return target.startsWith("pipe:") || target.startsWith("socket:");
    } catch (Exception e) {
      return true;
    }
  }
}
