"""skillshelf.skills"""
