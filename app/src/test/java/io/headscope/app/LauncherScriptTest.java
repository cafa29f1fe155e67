package io.headscope.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** The real {@code ./headscope} script, on a machine without a display and without xvfb-run. */
class LauncherScriptTest {
  @TempDir Path bin;

  @Test
  @EnabledOnOs(OS.LINUX)
  void testWithoutDisplayOrXvfbRunSaysInOneLineWhatToInstall() throws Exception {
    Path script = Path.of(System.getProperty("user.dir")).getParent().resolve("headscope");
    assertThat(script).isRegularFile();
    // a PATH with only what the script needs before it checks: no xvfb-run, no mvn
    for (String tool : List.of("bash", "dirname", "uname", "grep", "ldconfig")) {
      Optional<Path> found = which(tool);
      if (found.isPresent()) {
        Files.createSymbolicLink(bin.resolve(tool), found.get());
      }
    }
    assertThat(bin.resolve("bash")).exists();
    ProcessBuilder pb = new ProcessBuilder(bin.resolve("bash").toString(), script.toString(), "test");
    pb.environment().remove("DISPLAY");
    pb.environment().remove("WAYLAND_DISPLAY");
    pb.environment().put("PATH", bin.toString());
    Process p = pb.redirectErrorStream(true).start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(out).isEqualTo("headscope: the UI tests need a display: apt-get install xvfb libgtk-3-0 "
        + "(or run ./headscope test fast)\n");
    assertThat(p.exitValue()).isEqualTo(1);
  }

  private static Optional<Path> which(String tool) {
    String path = System.getenv("PATH") + File.pathSeparator + "/sbin" + File.pathSeparator + "/usr/sbin";
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir, tool);
      if (!dir.isEmpty() && Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }
}
