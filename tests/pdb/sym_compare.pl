#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# Compares `stackview symbols PDB` with a Breakpad .sym made from the same PDB: every FUNC must
# be there with the same RVA and size and the same name up to its parameter list (Breakpad
# appends the parameters from the type records, and for local functions "static" and the
# return type before the name), and every PUBLIC with the same RVA and name. Breakpad drops
# one leading underscore of every name, on x64 too, where nothing is decorated; stackview
# undecorates x86 names only, so names compare without one leading underscore. Prints what
# differs and a summary line "funcs N/N publics N/N"; exits 1 when anything is missing.
# usage: sym_compare.pl OURS.txt FILE.sym
use strict;
use warnings;
my ($ours, $sym) = @ARGV;
my (%byrva);
open(my $o, '<', $ours) or die "$ours: $!";
while (<$o>) {
	next if /^#/;
	chomp;
	my ($rva, $size, $name) = split / /, $_, 3;
	$byrva{hex $rva} = [ hex $size, $name ];
}
sub strip_params {
	my $n = shift;
	$n =~ s/ (const|volatile)$// for 1 .. 2;
	return $n unless $n =~ /\)$/;
	my $depth = 0;
	for (my $i = length($n) - 1; $i >= 0; $i--) {
		my $c = substr($n, $i, 1);
		$depth++ if $c eq ')';
		$depth-- if $c eq '(';
		return substr($n, 0, $i) if $depth == 0;
	}
	return $n;
}
# Breakpad's name against ours, or ours without one leading underscore; "static TYPE " before
# it aside.
sub same {
	my ($theirs, $ours) = @_;
	(my $bare = $ours) =~ s/^_//;
	for my $n ($ours, $bare) {
		return 1 if $theirs eq $n || $theirs =~ /^static .* \Q$n\E$/;
	}
	return 0;
}
my ($f, $fok, $p, $pok, $bad) = (0, 0, 0, 0, 0);
open(my $s, '<', $sym) or die "$sym: $!";
while (<$s>) {
	chomp;
	if (/^FUNC (?:m )?([0-9a-f]+) ([0-9a-f]+) [0-9a-f]+ (.*)$/) {
		$f++;
		my ($rva, $size, $name) = (hex $1, hex $2, strip_params($3));
		my $e = $byrva{$rva};
		if ($e && $e->[0] == $size && same($name, $e->[1])) { $fok++; next; }
		$bad++;
		printf "FUNC %x %x %s: %s\n", $rva, $size, $name, $e ? sprintf("ours %x %s", $e->[0], $e->[1]) : "missing";
	} elsif (/^PUBLIC (?:m )?([0-9a-f]+) [0-9a-f]+ (.*)$/) {
		$p++;
		my ($rva, $name) = (hex $1, $2);
		my $e = $byrva{$rva};
		if ($e && same($name, $e->[1])) { $pok++; next; }
		$bad++;
		printf "PUBLIC %x %s: %s\n", $rva, $name, $e ? "ours $e->[1]" : "missing";
	}
}
print "funcs $fok/$f publics $pok/$p\n";
exit($bad ? 1 : 0);
