package io.headscope.app.gui;

/**
 * A long, ordinary English text for the window's long-input checks: sentences written for HeadScope,
 * repeated in a fixed order until the wanted number of words (700 words give more than 512
 * wordpieces, so the model's maximum cuts it).
 */
public final class LongText {
  private static final String[] SENTENCES = {
      "The old ferry left the harbour a little after seven, carrying farmers, two teachers and a crate of hens.",
      "Nobody on board expected the fog to lift before noon, so the captain kept close to the northern shore.",
      "A boy near the railing counted the buoys aloud and lost track somewhere after the fortieth one.",
      "His grandmother, who had made the crossing every week for thirty years, told him the names of the islands.",
      "When the engine coughed twice and fell silent, the passengers looked at each other without a word.",
      "The mechanic climbed down into the hold with a lamp, muttering about filters and cheap diesel.",
      "Twenty minutes later the engine started again, and a cheer went up from the people on the upper deck.",
      "By the time they reached the market town, the sun had burned through the clouds and the water shone.",
      "The teachers hurried off toward the school, while the farmers argued about the price of eggs.",
      "In the afternoon the wind turned, and the return journey was slower and much colder than the first.",
      "The boy fell asleep on a bench, wrapped in a coat that smelled of tar and oranges.",
      "His grandmother watched the coast go by and thought about the summer she had first seen it.",
  };

  private LongText() {}

  /** The first {@code words} words of the repeated sentences. */
  public static String words(int words) {
    StringBuilder out = new StringBuilder();
    int n = 0;
    for (int i = 0; n < words; i++) {
      for (String w : SENTENCES[i % SENTENCES.length].split(" ")) {
        if (n++ == words) {
          break;
        }
        out.append(out.length() == 0 ? "" : " ").append(w);
      }
    }
    return out.toString();
  }
}
