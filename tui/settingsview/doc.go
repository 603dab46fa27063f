// Package settingsview owns the settings screen: every setting with its
// effective value, where that value comes from, what it allows and a line of
// help, edited in place (toggles, choices, text checked as it is typed) and
// saved, key by key, to the user file or a project file chosen explicitly,
// keeping the comments and unknown keys already there.
package settingsview
