package io.headscope.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The real main class in a child process, as `./headscope` starts it. */
class LauncherTest {
  @Test
  void withoutADisplayTheWindowCommandSaysSoInOneLineInsteadOfAStackTrace() throws Exception {
    ProcessBuilder pb = java();
    pb.environment().remove("DISPLAY");
    pb.environment().remove("WAYLAND_DISPLAY");
    Process p = pb.start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String err = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(p.exitValue()).isEqualTo(1);
    assertThat(err).startsWith("headscope: there is no display").doesNotContain("Exception").doesNotContain("\tat ");
  }

  private static ProcessBuilder java() throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    return new ProcessBuilder(java, "-cp", cp, Launcher.class.getName()).redirectErrorStream(true);
  }
}
