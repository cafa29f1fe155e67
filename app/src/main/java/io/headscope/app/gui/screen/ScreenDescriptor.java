package io.headscope.app.gui.screen;

import java.util.function.Function;

/**
 * What the main window needs to know of a screen before it exists: where it stands in the navigation,
 * the words of its menu entry, and how to build it. The main window reads a list of these and imports
 * no screen, so a new screen is its own package plus one line in that list.
 *
 * @param id the screen's name in node ids ({@code tab-<id>} is its entry in the navigation)
 * @param group the heading it is listed under (Heads, Causes, Linguistics, Flow, Models)
 * @param title its name in the navigation and over its content
 * @param menuText its entry in the Analysis menu
 * @param tooltip one line on what it shows, for the navigation entry
 * @param create builds the screen on the FX thread, once, when the window is made
 */
public record ScreenDescriptor(String id, String group, String title, String menuText, String tooltip,
    Function<ScreenContext, Screen> create) {}
