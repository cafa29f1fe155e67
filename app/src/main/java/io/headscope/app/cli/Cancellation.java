package io.headscope.app.cli;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Ctrl-C for a long command: a shutdown hook sets the flag the work polls, then waits for the
 * command to finish (stop, or complete the atomic write it is doing), so a file is either written
 * whole or not at all. Close it when the command is done.
 *
 * <p>The JVM runs shutdown hooks on SIGINT (it then exits 130) and on SIGTERM (exit 143), so a plain
 * {@code kill} cancels the same way. A JVM that starts with SIGINT ignored (a background job of a script)
 * never hears SIGINT; {@code ./headscope} therefore starts commands with SIGINT at its default.
 */
final class Cancellation implements AutoCloseable {
  /** How long Ctrl-C waits for the work to notice; one layer of a long input takes well under this. */
  private static final long GRACE_SECONDS = 30;

  /**
   * A second source of "stop": {@code headscope serve} points it at the running request's cancel flag, so
   * a protocol {@code cancel} stops a command where Ctrl-C would.
   */
  private static volatile java.util.function.BooleanSupplier alsoWhen = () -> false;

  private final AtomicBoolean requested = new AtomicBoolean();
  private final CountDownLatch done = new CountDownLatch(1);
  private final Thread hook = new Thread(this::interrupt, "headscope-cancel");

  private Cancellation() {}

  static Cancellation onCtrlC() {
    Cancellation c = new Cancellation();
    Runtime.getRuntime().addShutdownHook(c.hook);
    return c;
  }

  /**
   * Exit code of a command stopped by Ctrl-C (128 + SIGINT), after saying so. After SIGTERM the JVM
   * exits with 143 (128 + SIGTERM) on its own, once the hook returns.
   */
  static int cancelled() {
    System.err.println("headscope: cancelled; nothing was written.");
    System.err.flush();
    return 130;
  }

  boolean requested() {
    return requested.get() || alsoWhen.getAsBoolean();
  }

  /** Every command's cancellation also stops when {@code stop} says so (null: only on Ctrl-C again). */
  static void alsoWhen(java.util.function.BooleanSupplier stop) {
    alsoWhen = stop == null ? () -> false : stop;
  }

  void interrupt() {
    requested.set(true);
    try {
      done.await(GRACE_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    done.countDown();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running (Ctrl-C): it returns now that the latch is open
    }
  }
}
