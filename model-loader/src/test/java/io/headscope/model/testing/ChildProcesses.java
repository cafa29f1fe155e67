package io.headscope.model.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Starting child processes that a test sends signals to.
 *
 * <p>A test run started as a background job of a script ({@code ./headscope test &}, {@code nohup}, a
 * scheduler) has SIGINT ignored (POSIX), every child inherits that, and a JVM that starts with SIGINT
 * ignored never installs its handler, so a {@code kill -INT} would go unheard. A shell cannot undo an
 * ignore it inherited ({@code sh -c 'trap - INT; exec java ...'} keeps it, as POSIX says for
 * non-interactive shells), nor can {@code setsid}; {@code env --default-signal=INT} (GNU coreutils 8.31+)
 * or perl can. So every test that signals a child starts it through {@link #withDefaultSigint}, as
 * {@code ./headscope} starts its commands.
 */
public final class ChildProcesses {
  private ChildProcesses() {}

  /** The command line of a JVM on this test's class path: {@code java [jvmOptions] -cp CP mainClass}. */
  public static List<String> java(List<String> jvmOptions, String mainClass) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command = new ArrayList<>();
    command.add(java);
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", cp, mainClass));
    return command;
  }

  /** {@code command} started with SIGINT at its default action, whatever this JVM inherited. */
  public static List<String> withDefaultSigint(List<String> command) {
    List<String> out = new ArrayList<>(defaultSigintPrefix());
    out.addAll(command);
    return out;
  }

  private static List<String> defaultSigintPrefix() {
    if (succeeds("env", "--default-signal=INT", "true")) {
      return List.of("env", "--default-signal=INT");
    }
    if (succeeds("perl", "-e", "1")) {
      return List.of("perl", "-e",
          "$SIG{INT} = 'DEFAULT'; exec { $ARGV[0] } @ARGV or die \"cannot run $ARGV[0]: $!\\n\"");
    }
    throw new AssertionError("neither GNU env (--default-signal) nor perl is installed: cannot give the child "
        + "SIGINT back if this test run ignores it");
  }

  /** Whether a command runs and exits 0 (false when it is not installed). */
  public static boolean succeeds(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor() == 0;
    } catch (IOException notInstalled) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Whether the process ignores SIGINT (Linux: the SigIgn mask of /proc/PID/status); false where unknown. */
  public static boolean sigintIgnored(long pid) throws IOException {
    Path status = Path.of("/proc", String.valueOf(pid), "status");
    if (!Files.isReadable(status)) {
      return false;
    }
    for (String line : Files.readAllLines(status)) {
      if (line.startsWith("SigIgn:")) {
        return (Long.parseLong(line.substring(7).trim(), 16) & (1L << 1)) != 0; // bit 1: signal 2, SIGINT
      }
    }
    return false;
  }
}
