package io.headscope.model.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The test machine's CPU, from {@code /proc/cpuinfo} (Linux); unknown elsewhere. */
public final class Cpu {
  private Cpu() {}

  /** An Intel CPU with AVX2: where MKL's strict reproducible mode exists (its AVX2 and AVX-512 branches). */
  public static boolean isIntelWithAvx2() {
    List<String> info = cpuinfo();
    return field(info, "vendor_id").equals("GenuineIntel") && (" " + field(info, "flags") + " ").contains(" avx2 ");
  }

  /** Vendor and model name, for messages: {@code GenuineIntel Intel(R) Xeon(R) Processor}. */
  public static String describe() {
    List<String> info = cpuinfo();
    return (field(info, "vendor_id") + " " + field(info, "model name")).trim();
  }

  private static String field(List<String> info, String name) {
    for (String line : info) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).trim().equals(name)) {
        return line.substring(colon + 1).trim();
      }
    }
    return "";
  }

  private static List<String> cpuinfo() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo"));
    } catch (IOException | RuntimeException notLinux) {
      return List.of();
    }
  }
}
