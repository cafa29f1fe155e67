package io.headscope.app.render.figure;

import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import java.util.List;
import java.util.Locale;

/**
 * What a figure says about itself under its title: the model, the input, and which maps (intact, or
 * as run with which heads off and how).
 *
 * @param model the model's name
 * @param input the input as typed (a pair as "a ‖ b"), or a corpus description
 * @param off the heads switched off when the maps were made (empty: intact)
 * @param maps how the maps relate to the switches: "intact", "as run", "difference as run − intact"
 */
public record Caption(String model, String input, HeadMask off, String maps) {

  public static Caption intact(String model, String input) {
    return new Caption(model, input, HeadMask.NONE, "intact");
  }

  /** "maps: as run with 3 heads off (zero): 11-1, 11-2, 11-3", or "maps: intact". */
  public String mapsLine() {
    if (off.isEmpty() || maps.equals("intact")) {
      return "maps: intact model" + (off.isEmpty() ? "" : " (" + heads() + " off elsewhere)");
    }
    return "maps: " + maps + " with " + heads() + " off (" + off.mode().name().toLowerCase(Locale.ROOT) + "): "
        + names(off.off().stream().sorted().toList());
  }

  private String heads() {
    int n = off.off().size();
    return n + (n == 1 ? " head" : " heads");
  }

  private static String names(List<Head> hs) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < hs.size(); i++) {
      if (i == 12) {
        return s + ", … (" + hs.size() + " in all)";
      }
      s.append(i == 0 ? "" : ", ").append(hs.get(i));
    }
    return s.toString();
  }
}
